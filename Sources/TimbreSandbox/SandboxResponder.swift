import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SandboxCore

/// Thin glue: Hummingbird request → `SandboxService` → Hummingbird response.
struct SandboxResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let service: SandboxService

    struct ConnectionReset: Error {}

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
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
        let answer = service.handle(sandboxRequest)
        if answer.delayMilliseconds > 0 {
            try await Task.sleep(for: .milliseconds(answer.delayMilliseconds))
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
            return Response(status: status, headers: fields, body: ResponseBody(contentLength: bytes.count) { writer in
                try await writer.write(partial)
                throw ConnectionReset()
            })
        }
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
