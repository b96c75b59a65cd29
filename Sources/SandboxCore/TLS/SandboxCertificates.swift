import COpenSSL
import Foundation

/// SPKI pins in the `sha256/BASE64` form that curl's `--pinnedpubkey` and HPKP use.
public enum SPKIPin {
    /// Pins of every certificate in a PEM text, in file order.
    public static func pins(ofPEM pem: String) throws -> [String] {
        try Certificate.all(fromPEM: pem).map(pin(of:))
    }

    static func pin(of certificate: Certificate) throws -> String {
        let digest = Digest.sha256(try certificate.subjectPublicKeyInfoDER())
        return "sha256/" + Data(digest).base64EncodedString()
    }
}

/// The sandbox's three-level PKI: an EC P-256 root, an intermediate signed by it, and a leaf for
/// 127.0.0.1/localhost signed by the intermediate. Clients trust `ca.pem`; the server presents
/// `chain.pem` (leaf + intermediate) with `leaf.key`.
public struct SandboxCertificates: Sendable {
    public struct Pins: Codable, Sendable, Equatable {
        public var leaf: String
        public var intermediate: String
        public var root: String
    }

    public let directory: String
    public let pins: Pins

    public var caFile: String { directory + "/ca.pem" }
    public var intermediateFile: String { directory + "/intermediate.pem" }
    public var leafFile: String { directory + "/leaf.pem" }
    public var leafKeyFile: String { directory + "/leaf.key" }
    public var chainFile: String { directory + "/chain.pem" }

    static let fileNames = ["ca.pem", "intermediate.pem", "leaf.pem", "leaf.key", "chain.pem"]

    /// Uses the certificates in `directory` when all files are there, else generates new ones.
    public static func loadOrCreate(in directory: String) throws -> SandboxCertificates {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let complete = fileNames.allSatisfy { FileManager.default.fileExists(atPath: directory + "/" + $0) }
        if !complete { try generate(in: directory) }
        func pin(_ name: String) throws -> String {
            let pem = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
            guard let first = try SPKIPin.pins(ofPEM: pem).first else { throw OpenSSLError("reading \(name)") }
            return first
        }
        return SandboxCertificates(
            directory: directory,
            pins: Pins(leaf: try pin("leaf.pem"), intermediate: try pin("intermediate.pem"), root: try pin("ca.pem"))
        )
    }

    static func generate(in directory: String) throws {
        let rootKey = try ECPrivateKey()
        let intermediateKey = try ECPrivateKey()
        let leafKey = try ECPrivateKey()
        let root = try makeCertificate(
            commonName: "timbre sandbox Root CA", key: rootKey, issuer: nil, issuerKey: rootKey,
            validDays: 3_650,
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE"),
                (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_subject_key_identifier, "hash"),
            ]
        )
        let intermediate = try makeCertificate(
            commonName: "timbre sandbox Intermediate CA", key: intermediateKey, issuer: root, issuerKey: rootKey,
            validDays: 1_825,
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_subject_key_identifier, "hash"),
                (NID_authority_key_identifier, "keyid:always"),
            ]
        )
        let leaf = try makeCertificate(
            commonName: "localhost", key: leafKey, issuer: intermediate, issuerKey: intermediateKey,
            validDays: 730,
            extensions: [
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"),
                (NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost"),
                (NID_subject_key_identifier, "hash"),
                (NID_authority_key_identifier, "keyid:always"),
            ]
        )
        let leafPEM = try leaf.pem()
        let intermediatePEM = try intermediate.pem()
        try write(try root.pem(), to: directory + "/ca.pem", mode: 0o644)
        try write(intermediatePEM, to: directory + "/intermediate.pem", mode: 0o644)
        try write(leafPEM, to: directory + "/leaf.pem", mode: 0o644)
        try write(leafPEM + intermediatePEM, to: directory + "/chain.pem", mode: 0o644)
        try write(try leafKey.pem(), to: directory + "/leaf.key", mode: 0o600)
    }

    private static func makeCertificate(
        commonName: String, key: ECPrivateKey, issuer: Certificate?, issuerKey: ECPrivateKey,
        validDays: Int, extensions: [(Int32, String)]
    ) throws -> Certificate {
        guard let x509 = X509_new() else { throw OpenSSLError("X509_new") }
        let certificate = Certificate(owning: x509)
        guard X509_set_version(x509, 2) == 1 else { throw OpenSSLError("X509_set_version") }

        guard let serial = BN_new() else { throw OpenSSLError("BN_new") }
        defer { BN_free(serial) }
        guard BN_rand(serial, 120, -1, 0) == 1,
            BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x509)) != nil
        else { throw OpenSSLError("serial number") }

        guard X509_gmtime_adj(X509_getm_notBefore(x509), -86_400) != nil,
            X509_gmtime_adj(X509_getm_notAfter(x509), validDays * 86_400) != nil
        else { throw OpenSSLError("validity") }
        guard X509_set_pubkey(x509, key.pointer) == 1 else { throw OpenSSLError("X509_set_pubkey") }

        guard let name = X509_NAME_new() else { throw OpenSSLError("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        guard X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, "timbre sandbox", -1, -1, 0) == 1,
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1,
            X509_set_subject_name(x509, name) == 1,
            X509_set_issuer_name(x509, issuer.map { X509_get_subject_name($0.pointer) } ?? name) == 1
        else { throw OpenSSLError("names") }

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.pointer ?? x509, x509, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else { throw OpenSSLError("extension \(nid)") }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else { throw OpenSSLError("X509_add_ext") }
        }
        guard X509_sign(x509, issuerKey.pointer, EVP_sha256()) > 0 else { throw OpenSSLError("X509_sign") }
        return certificate
    }

    private static func write(_ text: String, to path: String, mode: mode_t) throws {
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            guard result > 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
            written += result
        }
    }
}
