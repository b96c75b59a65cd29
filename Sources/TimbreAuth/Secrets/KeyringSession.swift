import CLibSecret
import Foundation
import TimbreCore

/// The schema, built once: libsecret keeps pointers to its strings, so they live for the process.
final class Schema: @unchecked Sendable {
    static let shared = Schema()
    let pointer: UnsafeMutablePointer<SecretSchema>

    private init() {
        pointer = .allocate(capacity: 1)
        var schema = SecretSchema()
        schema.name = UnsafePointer(strdup(LibSecretStore.schemaName))
        schema.flags = SECRET_SCHEMA_NONE
        withUnsafeMutableBytes(of: &schema.attributes) { raw in
            let attributes = raw.bindMemory(to: SecretSchemaAttribute.self)
            for (index, name) in ["profile", "kind", "tier"].enumerated() {
                attributes[index] = SecretSchemaAttribute(name: UnsafePointer(strdup(name)), type: SECRET_SCHEMA_ATTRIBUTE_STRING)
            }
        }
        pointer.initialize(to: schema)
    }
}

/// One operation's connection, Secret Service proxy and sensitive collection. Used by one phase
/// thread at a time (phases run in sequence); freed when the last phase lets go of it.
final class KeyringSession: @unchecked Sendable {
    struct Item {
        /// Kept alive by the session (`held`).
        let object: UnsafeMutablePointer<SecretItem>
        let tier: SecretTier
        let locked: Bool
    }

    private let cancellable: UnsafeMutablePointer<GCancellable>
    private var service: UnsafeMutablePointer<SecretService>?
    private var sensitive: UnsafeMutablePointer<SecretCollection>?
    /// Items found by searches, released with the session.
    private var held: [UnsafeMutablePointer<SecretItem>] = []
    /// The item a later phase reads (it lives in `held`).
    var target: UnsafeMutablePointer<SecretItem>?

    init() {
        cancellable = g_cancellable_new()
    }

    deinit {
        for item in held { g_object_unref(item) }
        if let sensitive { g_object_unref(sensitive) }
        if let service { g_object_unref(service) }
        g_object_unref(cancellable)
    }

    /// Thread-safe (GCancellable is).
    func cancel() { g_cancellable_cancel(cancellable) }

    // MARK: Connecting

    /// A proxy of its own (not libsecret's shared one), so a failed or hung attempt leaves nothing
    /// cached behind. GDBus reads `DBUS_SESSION_BUS_ADDRESS` once per process.
    func connect() throws(SecretStoreError) {
        var error: UnsafeMutablePointer<GError>?
        guard let opened = secret_service_open_sync(secret_service_get_type(), nil, SECRET_SERVICE_OPEN_SESSION, cancellable, &error) else {
            throw unavailable(error)
        }
        service = opened
    }

    private func requireService() throws(SecretStoreError) -> UnsafeMutablePointer<SecretService> {
        guard let service else { throw .keyring(detail: "not connected") }
        return service
    }

    // MARK: Items

    func search(profile: String, kind: SecretKind, tier: SecretTier? = nil) throws(SecretStoreError) -> [Item] {
        let service = try requireService()
        let attributes = Self.attributes(profile: profile, kind: kind, tier: tier)
        defer { g_hash_table_unref(attributes) }
        var error: UnsafeMutablePointer<GError>?
        let list = secret_service_search_sync(service, Schema.shared.pointer, attributes, SECRET_SEARCH_ALL, cancellable, &error)
        if let error { throw Self.failure(error) }
        defer { g_list_free_full(list, g_object_unref) }
        var items: [Item] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data {
                let item = data.assumingMemoryBound(to: SecretItem.self)
                let itemAttributes = secret_item_get_attributes(item)
                var tier = SecretTier.standard
                if let itemAttributes, let raw = g_hash_table_lookup(itemAttributes, "tier") {
                    tier = SecretTier(rawValue: String(cString: raw.assumingMemoryBound(to: CChar.self))) ?? .standard
                }
                if let itemAttributes { g_hash_table_unref(itemAttributes) }
                g_object_ref(item)
                held.append(item)
                items.append(Item(object: item, tier: tier, locked: secret_item_get_locked(item) != 0))
            }
            node = current.pointee.next
        }
        return items
    }

    func store(
        _ secret: SecretBytes, profile: String, kind: SecretKind, tier: SecretTier, label: String, collection: String
    ) throws(SecretStoreError) {
        let service = try requireService()
        let attributes = Self.attributes(profile: profile, kind: kind, tier: tier)
        defer { g_hash_table_unref(attributes) }
        // secret_value_new copies into libsecret's own (non-pageable) memory.
        let value = secret.withCString { secret_value_new($0, gssize(secret.count), "text/plain") }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var error: UnsafeMutablePointer<GError>?
        if secret_service_store_sync(service, Schema.shared.pointer, attributes, collection, label, value, cancellable, &error) == 0 {
            throw Self.failure(error)
        }
    }

    func loadSecret(_ item: UnsafeMutablePointer<SecretItem>) throws(SecretStoreError) -> SecretBytes {
        var error: UnsafeMutablePointer<GError>?
        guard secret_item_load_secret_sync(item, cancellable, &error) != 0 else { throw Self.failure(error) }
        guard let value = secret_item_get_secret(item) else { throw .locked(detail: "the keyring returned no secret (locked?)") }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length: gsize = 0
        guard let bytes = secret_value_get(value, &length) else { return SecretBytes(bytes: []) }
        return SecretBytes(copying: UnsafeRawBufferPointer(start: bytes, count: Int(length)))
    }

    /// Deletes every unlocked item of that kind and profile whose tier is not `except`; returns
    /// whether locked `sensitive` ones remain. A locked item elsewhere is `.locked`.
    func removeCopies(profile: String, kind: SecretKind, except: SecretTier?) throws(SecretStoreError) -> Bool {
        var lockedSensitive = false
        var deletedSensitive = false
        // Deleting from an open timbre-sensitive collection still ends with it locked.
        defer {
            if deletedSensitive && (sensitive != nil || (try? prepareSensitive(create: false)) == true) { lockSensitive() }
        }
        for found in try search(profile: profile, kind: kind) where found.tier != except {
            if found.locked {
                guard found.tier == .sensitive else { throw .locked(detail: "an item to delete is in a locked collection") }
                lockedSensitive = true
                continue
            }
            var error: UnsafeMutablePointer<GError>?
            if secret_item_delete_sync(found.object, cancellable, &error) == 0 { throw Self.failure(error) }
            if found.tier == .sensitive { deletedSensitive = true }
        }
        return lockedSensitive
    }

    // MARK: The sensitive collection

    var sensitivePath: String? {
        sensitive.map { String(cString: g_dbus_proxy_get_object_path(UnsafeMutableRawPointer($0).assumingMemoryBound(to: GDBusProxy.self))) }
    }

    var sensitiveLocked: Bool {
        sensitive.map { secret_collection_get_locked($0) != 0 } ?? false
    }

    /// Finds the `timbre-sensitive` collection (by label: gnome-keyring supports no alias but
    /// "default"); with `create`, creates it when missing (the keyring prompts for its password).
    /// Returns whether it exists now.
    func prepareSensitive(create: Bool) throws(SecretStoreError) -> Bool {
        let service = try requireService()
        var error: UnsafeMutablePointer<GError>?
        // Loading collections also loads their items; one deleted meanwhile (another process,
        // another store) fails the load, so try again a few times.
        var attempts = 0
        while secret_service_load_collections_sync(service, cancellable, &error) == 0 {
            attempts += 1
            let vanished = error.flatMap { $0.pointee.message.map { String(cString: $0).contains("No such secret item") } } ?? false
            guard vanished && attempts < 5 else { throw Self.failure(error) }
            g_error_free(error)
            error = nil
        }
        let list = secret_service_get_collections(service)
        defer { g_list_free_full(list, g_object_unref) }
        var node = list
        while let current = node {
            if let data = current.pointee.data {
                let collection = data.assumingMemoryBound(to: SecretCollection.self)
                if let label = secret_collection_get_label(collection) {
                    let matches = String(cString: label) == LibSecretStore.sensitiveCollectionLabel
                    g_free(label)
                    if matches {
                        g_object_ref(collection)
                        sensitive = collection
                        return true
                    }
                }
            }
            node = current.pointee.next
        }
        guard create else { return false }
        guard
            let created = secret_collection_create_sync(
                service, LibSecretStore.sensitiveCollectionLabel, nil, SECRET_COLLECTION_CREATE_NONE, cancellable, &error)
        else {
            throw .sensitiveCollectionUnavailable(detail: Self.message(error) ?? "the prompt was dismissed")
        }
        sensitive = created
        return true
    }

    /// Unlocking makes the keyring ask the user (their presence is the point of this tier).
    func unlockSensitive() throws(SecretStoreError) {
        let service = try requireService()
        guard let sensitive else { throw .sensitiveLocked(detail: "no timbre-sensitive collection") }
        let objects = g_list_append(nil, sensitive)
        defer { g_list_free(objects) }
        var error: UnsafeMutablePointer<GError>?
        let count = secret_service_unlock_sync(service, objects, cancellable, nil, &error)
        if let error { throw .sensitiveLocked(detail: Self.message(error) ?? "unlock failed") }
        guard count > 0 else { throw .sensitiveLocked(detail: "the unlock prompt was dismissed") }
    }

    /// Best effort: a failure to lock must not hide the result of the operation itself.
    func lockSensitive() {
        guard let service, let sensitive else { return }
        let objects = g_list_append(nil, sensitive)
        defer { g_list_free(objects) }
        var error: UnsafeMutablePointer<GError>?
        _ = secret_service_lock_sync(service, objects, nil, nil, &error)
        if let error { g_error_free(error) }
    }

    // MARK: Helpers

    private static func attributes(profile: String, kind: SecretKind, tier: SecretTier?) -> OpaquePointer {
        let table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)
        func put(_ key: String, _ value: String) { g_hash_table_insert(table, g_strdup(key), g_strdup(value)) }
        put("profile", profile)
        put("kind", kind.rawValue)
        if let tier { put("tier", tier.rawValue) }
        // swiftlint:disable:next force_unwrapping — g_hash_table_new_full aborts rather than return NULL.
        return table!
    }

    /// Takes ownership of the GError (frees it) and returns its message.
    private static func message(_ error: UnsafeMutablePointer<GError>?) -> String? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) }
    }

    /// Failing to reach the service at all, whatever the cause, is one error with one message.
    private func unavailable(_ error: UnsafeMutablePointer<GError>?) -> SecretStoreError {
        if g_cancellable_is_cancelled(cancellable) != 0 { return .timeout(seconds: 0) }
        return .serviceUnavailable(detail: Self.message(error) ?? "unknown error")
    }

    private static func failure(_ error: UnsafeMutablePointer<GError>?) -> SecretStoreError {
        guard let error else { return .keyring(detail: "unknown error") }
        let isLockedError = error.pointee.domain == secret_error_get_quark() && error.pointee.code == SECRET_ERROR_IS_LOCKED.rawValue
        let detail = message(error) ?? "unknown error"
        if isLockedError || detail.localizedCaseInsensitiveContains("locked")
            || detail.contains("Object does not exist at path")
        {
            return .locked(detail: detail)
        }
        if detail.contains("org.freedesktop.secrets") || detail.contains("Could not connect") {
            return .serviceUnavailable(detail: detail)
        }
        return .keyring(detail: detail)
    }
}
