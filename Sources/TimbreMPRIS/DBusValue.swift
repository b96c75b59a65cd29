import CGio

/// A D-Bus value, as the bridge speaks it: the few types MPRIS uses. Built into a GVariant only
/// inside `GDBusHost`; read back from one when a call's arguments arrive.
enum DBusValue: Equatable, Sendable {
    case string(String)
    case objectPath(String)
    case boolean(Bool)
    case int64(Int64)
    case double(Double)
    case strings([String])
    /// `a{sv}`: MPRIS's Metadata and PropertiesChanged's changed properties.
    case dictionary([String: DBusValue])

    /// A floating GVariant of this value (consumed by whatever it is handed to).
    func makeVariant() -> OpaquePointer? {
        switch self {
        case .string(let text):
            return g_variant_new_string(text)
        case .objectPath(let path):
            // g_variant_new_object_path aborts the call with a critical on an invalid path.
            return g_variant_is_object_path(path) != 0 ? g_variant_new_object_path(path) : g_variant_new_object_path(MPRISTrack.noTrackPath)
        case .boolean(let value):
            return g_variant_new_boolean(value ? 1 : 0)
        case .int64(let value):
            return g_variant_new_int64(gint64(value))
        case .double(let value):
            return g_variant_new_double(value)
        case .strings(let list):
            guard let builder = g_variant_builder_new(tgio_variant_type("as")) else { return nil }
            defer { g_variant_builder_unref(builder) }
            for text in list { g_variant_builder_add_value(builder, g_variant_new_string(text)) }
            return g_variant_builder_end(builder)
        case .dictionary(let entries):
            guard let builder = g_variant_builder_new(tgio_variant_type("a{sv}")) else { return nil }
            defer { g_variant_builder_unref(builder) }
            for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
                guard let inner = value.makeVariant() else { continue }
                g_variant_builder_add_value(builder, g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(inner)))
            }
            return g_variant_builder_end(builder)
        }
    }

    /// The value a GVariant holds (a variant `v` is unwrapped), or nil for a type MPRIS never sends.
    init?(variant: OpaquePointer) {
        guard let typeString = g_variant_get_type_string(variant) else { return nil }
        switch String(cString: typeString) {
        case "s":
            guard let text = g_variant_get_string(variant, nil) else { return nil }
            self = .string(String(cString: text))
        case "o":
            guard let text = g_variant_get_string(variant, nil) else { return nil }
            self = .objectPath(String(cString: text))
        case "b":
            self = .boolean(g_variant_get_boolean(variant) != 0)
        case "x":
            self = .int64(Int64(g_variant_get_int64(variant)))
        case "d":
            self = .double(g_variant_get_double(variant))
        case "v":
            guard let inner = g_variant_get_variant(variant) else { return nil }
            defer { g_variant_unref(inner) }
            guard let value = DBusValue(variant: inner) else { return nil }
            self = value
        case "as":
            var list: [String] = []
            for index in 0..<g_variant_n_children(variant) {
                guard let child = g_variant_get_child_value(variant, index) else { continue }
                defer { g_variant_unref(child) }
                if let text = g_variant_get_string(child, nil) { list.append(String(cString: text)) }
            }
            self = .strings(list)
        default:
            return nil
        }
    }

    /// Each child of a tuple (a method call's arguments), nil where the type is not one of ours.
    static func children(ofTuple tuple: OpaquePointer?) -> [DBusValue?] {
        guard let tuple, g_variant_is_container(tuple) != 0 else { return [] }
        return (0..<g_variant_n_children(tuple)).map { index in
            guard let child = g_variant_get_child_value(tuple, index) else { return nil }
            defer { g_variant_unref(child) }
            return DBusValue(variant: child)
        }
    }

    /// A floating tuple of `values`.
    static func makeTuple(_ values: [DBusValue]) -> OpaquePointer? {
        let children: [OpaquePointer?] = values.compactMap { $0.makeVariant() }
        return children.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }
}
