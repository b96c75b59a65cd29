import Foundation

/// Test helper processes that announce themselves with one line on stdout (a port, a bus address).
public enum ChildProcess {
    public struct EarlyExit: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `executable`, blocks until its first stdout line, returns the process and that line.
    /// Call it off the cooperative pool (it blocks on the pipe).
    public static func startAndReadFirstLine(_ executable: String, _ arguments: [String], name: String) throws -> (Process, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var buffer = Data()
        while !buffer.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw EarlyExit(description: "\(name) exited before it was ready") }
            buffer.append(chunk)
        }
        return (process, String(decoding: buffer.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self))
    }
}
