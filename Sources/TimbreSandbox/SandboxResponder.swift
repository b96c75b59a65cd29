import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SandboxCore

/// Hummingbird's basic context plus the connection, so an answer can be withheld entirely.
struct SandboxRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}

/// Thin glue: Hummingbird request → `SandboxService` → Hummingbird response.
struct SandboxResponder: HTTPResponder {
    typealias Context = SandboxRequestContext
    let service: SandboxService

    struct ConnectionReset: Error {}

    func respond(to request: Request, context: SandboxRequestContext) async throws -> Response {
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName.lowercased()] = field.value }
        let body = try await request.body.collect(upTo: 4 << 20)
        let sandboxRequest = SandboxRequest(
            method: request.method.rawValue,
            path: request.uri.path,
            query: request.uri.query ?? "",
            headers: headers,
            body: Array(buffer: body)
        )
        let answer: SandboxResponse
        let hold = service.holdBeforeHandling(sandboxRequest)
        if hold > 0 {
            // Not in this handler's task: a client that hangs up during the hold must not cancel
            // the write (the server received it; it lands when the hold ends).
            answer = await Task.detached { [service] in
                try? await Task.sleep(for: .milliseconds(hold))
                return service.handle(sandboxRequest)
            }.value
        } else {
            answer = service.handle(sandboxRequest)
        }
        if answer.delayMilliseconds > 0 {
            try await Task.sleep(for: .milliseconds(answer.delayMilliseconds))
        }
        if answer.closeWithoutAnswer {
            // `apply_then_reset`: the request was handled; the client hears nothing back.
            context.channel.close(mode: .all, promise: nil)
            throw ConnectionReset()
        }
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        let status = HTTPResponse.Status(code: answer.status)
        let bytes = answer.body
        if let cut = answer.resetAfterBytes {
            fields[.contentLength] = String(bytes.count)
            let partial = ByteBuffer(bytes: bytes.prefix(cut))
            // Throwing mid-body makes the server drop the connection without finishing the response.
            return Response(
                status: status, headers: fields,
                body: ResponseBody(contentLength: bytes.count) { writer in
                    try await writer.write(partial)
                    throw ConnectionReset()
                })
        }
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
