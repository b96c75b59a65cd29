import CGio
import Foundation
import TimbreCore

/// Why the bus could not be joined, in words a user can act on.
public struct MPRISBridgeError: UserFacingError, Equatable {
    public let message: String
    public let hint: String?
    public var exitStatus: ExitStatus { .failure }

    init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }

    static func noSessionBus(_ detail: String) -> MPRISBridgeError {
        MPRISBridgeError(
            "Cannot reach the D-Bus session bus for MPRIS: \(detail).",
            hint: "run timbre inside a desktop session (DBUS_SESSION_BUS_ADDRESS set), or under `dbus-run-session -- timbre …`")
    }
}

/// A method call as it arrived, answered once with `reply` or `fail` from any thread.
struct DBusCall: Sendable {
    let interface: String
    let member: String
    let arguments: [DBusValue?]
    fileprivate let invocation: InvocationPointer
    fileprivate let host: GDBusHost

    func reply(_ values: [DBusValue] = []) {
        let invocation = invocation
        host.onLoop { _ in g_dbus_method_invocation_return_value(invocation.pointer, values.isEmpty ? nil : DBusValue.makeTuple(values)) }
    }

    func fail(name: String = "org.freedesktop.DBus.Error.Failed", _ message: String) {
        let invocation = invocation
        host.onLoop { _ in g_dbus_method_invocation_return_dbus_error(invocation.pointer, name, message) }
    }
}

/// A GDBusMethodInvocation in flight: GDBus hands it to us, one return consumes it.
private struct InvocationPointer: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The one type over GIO: a private session-bus connection, a GMainContext of its own iterated on
/// a thread of its own (never on Swift's cooperative pool), one exported object with the
/// interfaces of an introspection document, and a well-known name.
///
/// Threads: everything that touches the connection runs on the loop thread (`onLoop`); the
/// handlers are called there too. `onLoop`, `emitSignal` and a call's `reply` may be used from
/// any thread. State marked "loop thread" is touched only there, hence `@unchecked Sendable`.
final class GDBusHost: @unchecked Sendable {
    typealias MethodHandler = @Sendable (DBusCall) -> Void
    typealias PropertyReader = @Sendable (_ interface: String, _ property: String) -> DBusValue?

    private let introspection: String
    private let objectPath: String
    private let interfaces: [String]
    private let methodHandler: MethodHandler
    private let propertyReader: PropertyReader
    private let context: OpaquePointer

    private struct Lifecycle {
        var started = false
        var finished = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }
    private let lifecycle = Locked(Lifecycle())

    // Loop thread.
    private var loop: OpaquePointer?
    private var connection: OpaquePointer?
    private var registrations: [guint] = []
    private var ownerID: guint = 0
    private var candidateNames: [String] = []
    private var ownedName: String?
    private var pendingStart: CheckedContinuation<String, any Error>?

    init(introspection: String, objectPath: String, interfaces: [String], methodHandler: @escaping MethodHandler, propertyReader: @escaping PropertyReader) {
        self.introspection = introspection
        self.objectPath = objectPath
        self.interfaces = interfaces
        self.methodHandler = methodHandler
        self.propertyReader = propertyReader
        context = g_main_context_new()
    }

    deinit { g_main_context_unref(context) }

    /// Connects, exports the object and owns the first of `names` nobody owns; returns that name.
    func start(names: [String]) async throws -> String {
        let first = lifecycle.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard first else { throw MPRISBridgeError("The MPRIS bridge was already started.") }
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { self.run(names: names, start: continuation) }
            thread.name = "timbre-mpris"
            thread.start()
        }
    }

    /// Releases the name, unexports the object, closes the connection and ends the thread.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = lifecycle.withLock { state -> Bool in
                if state.finished || !state.started { return true }
                state.stopWaiters.append(continuation)
                return false
            }
            if done {
                continuation.resume()
                return
            }
            onLoop { host in host.quit() }
        }
    }

    /// Runs `job` on the loop thread, later: always from an idle source (also when called on the
    /// loop thread, so that nothing runs inside one of GIO's callbacks), in the order asked.
    func onLoop(_ job: @escaping @Sendable (GDBusHost) -> Void) {
        guard !lifecycle.withLock({ $0.finished }), let source = g_idle_source_new() else { return }
        let box = Unmanaged.passRetained(LoopJob(host: self, job: job)).toOpaque()
        g_source_set_callback(
            source,
            { data in
                guard let data else { return 0 }
                let box = Unmanaged<LoopJob>.fromOpaque(data).takeRetainedValue()
                box.job(box.host)
                return 0  // G_SOURCE_REMOVE
            }, box, nil)
        g_source_attach(source, context)
        g_source_unref(source)
    }

    /// Emits a signal from the object (to every listener).
    func emitSignal(interface: String, member: String, arguments: [DBusValue]) {
        let path = objectPath
        onLoop { host in
            guard let connection = host.connection else { return }
            var error: UnsafeMutablePointer<GError>?
            if g_dbus_connection_emit_signal(connection, nil, path, interface, member, DBusValue.makeTuple(arguments), &error) == 0 {
                g_free(tgio_error_take_message(error))
            }
        }
    }

    // MARK: - The loop thread

    private func run(names: [String], start: CheckedContinuation<String, any Error>) {
        g_main_context_push_thread_default(context)
        loop = g_main_loop_new(context, 0)
        pendingStart = start
        candidateNames = names
        var nodeInfo: UnsafeMutablePointer<GDBusNodeInfo>?
        if let failure = connect(nodeInfo: &nodeInfo) {
            failStart(failure)
        } else {
            ownNextName()
            g_main_loop_run(loop)
        }
        if let connection {
            var error: UnsafeMutablePointer<GError>?
            if g_dbus_connection_flush_sync(connection, nil, &error) == 0 { g_free(tgio_error_take_message(error)) }
            error = nil
            if g_dbus_connection_close_sync(connection, nil, &error) == 0 { g_free(tgio_error_take_message(error)) }
            g_object_unref(UnsafeMutableRawPointer(connection))
            self.connection = nil
        }
        if let nodeInfo { g_dbus_node_info_unref(nodeInfo) }
        // Sources still attached (a late reply) run here once, before the context is let go.
        while g_main_context_iteration(context, 0) != 0 {}
        g_main_loop_unref(loop)
        loop = nil
        g_main_context_pop_thread_default(context)
        let waiters = lifecycle.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.finished = true
            defer { state.stopWaiters = [] }
            return state.stopWaiters
        }
        waiters.forEach { $0.resume() }
    }

    /// A private connection (not GIO's shared one, which libsecret may hold) so that closing it
    /// is ours to do; the object registered while our context is the thread default, so its
    /// calls are dispatched on this thread.
    private func connect(nodeInfo: inout UnsafeMutablePointer<GDBusNodeInfo>?) -> MPRISBridgeError? {
        var error: UnsafeMutablePointer<GError>?
        guard let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            return .noSessionBus(takeMessage(error))
        }
        defer { g_free(address) }
        let flags = GDBusConnectionFlags(G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            return .noSessionBus(takeMessage(error))
        }
        self.connection = connection
        guard let node = g_dbus_node_info_new_for_xml(introspection, &error) else {
            return MPRISBridgeError("The MPRIS interface description was refused by GIO: \(takeMessage(error)).")
        }
        nodeInfo = node
        let me = Unmanaged.passUnretained(self).toOpaque()
        for name in interfaces {
            guard let info = g_dbus_node_info_lookup_interface(node, name) else {
                return MPRISBridgeError("The MPRIS interface description has no \(name).")
            }
            let id = tgio_register_object(connection, objectPath, info, Self.methodCall, Self.getProperty, me, &error)
            guard id != 0 else { return MPRISBridgeError("Cannot export \(name) on the session bus: \(takeMessage(error)).") }
            registrations.append(id)
        }
        return nil
    }

    private func ownNextName() {
        guard let connection, !candidateNames.isEmpty else {
            failStart(MPRISBridgeError("Every MPRIS name timbre may use is taken on the session bus.", hint: "stop the other timbre that owns it"))
            quit()
            return
        }
        let name = candidateNames.removeFirst()
        ownerID = g_bus_own_name_on_connection(
            connection, name, G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
            { _, name, data in
                guard let data, let name else { return }
                Unmanaged<GDBusHost>.fromOpaque(data).takeUnretainedValue().nameAcquired(String(cString: name))
            },
            { _, name, data in
                guard let data, let name else { return }
                Unmanaged<GDBusHost>.fromOpaque(data).takeUnretainedValue().nameLost(String(cString: name))
            },
            Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    private func nameAcquired(_ name: String) {
        ownedName = name
        pendingStart?.resume(returning: name)
        pendingStart = nil
    }

    private func nameLost(_ name: String) {
        if ownedName == name { ownedName = nil }
        // Lost before it was ours: taken by another process; try the next name (not from inside
        // GIO's callback).
        guard pendingStart != nil else { return }
        let owner = ownerID
        ownerID = 0
        onLoop { host in
            if owner != 0 { g_bus_unown_name(owner) }
            host.ownNextName()
        }
    }

    private func failStart(_ error: MPRISBridgeError) {
        pendingStart?.resume(throwing: error)
        pendingStart = nil
    }

    /// Releases the name (GIO's ReleaseName is answered before it returns) and unexports the object.
    private func quit() {
        if ownerID != 0 {
            g_bus_unown_name(ownerID)
            ownerID = 0
        }
        if let connection {
            for id in registrations { g_dbus_connection_unregister_object(connection, id) }
        }
        registrations = []
        failStart(MPRISBridgeError("The MPRIS bridge was stopped before it owned a name."))
        g_main_loop_quit(loop)
    }

    private func takeMessage(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let text = tgio_error_take_message(error) else { return "unknown error" }
        defer { g_free(text) }
        return String(cString: text)
    }

    private static let methodCall: tgio_method_call_fn = { _, _, _, interface, method, parameters, invocation, data in
        guard let data, let invocation else { return }
        let host = Unmanaged<GDBusHost>.fromOpaque(data).takeUnretainedValue()
        let call = DBusCall(
            interface: interface.map { String(cString: $0) } ?? "", member: method.map { String(cString: $0) } ?? "",
            arguments: DBusValue.children(ofTuple: parameters), invocation: InvocationPointer(pointer: invocation), host: host)
        host.methodHandler(call)
    }

    private static let getProperty: tgio_get_property_fn = { _, _, _, interface, property, error, data in
        guard let data, let interface, let property else { return nil }
        let host = Unmanaged<GDBusHost>.fromOpaque(data).takeUnretainedValue()
        let name = String(cString: property)
        if let value = host.propertyReader(String(cString: interface), name), let variant = value.makeVariant() { return variant }
        g_set_error_literal(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_UNKNOWN_PROPERTY.rawValue), "No such property: \(name)")
        return nil
    }
}

private final class LoopJob: @unchecked Sendable {
    let host: GDBusHost
    let job: @Sendable (GDBusHost) -> Void
    init(host: GDBusHost, job: @escaping @Sendable (GDBusHost) -> Void) {
        self.host = host
        self.job = job
    }
}
