import CLibSecret

/// Names of the libsecret collections timbre uses (the secret stores build on these).
enum SecretCollections {
    static var defaultAlias: String { String(cString: tsecret_collection_default()) }
    static var sessionAlias: String { String(cString: tsecret_collection_session()) }
}
