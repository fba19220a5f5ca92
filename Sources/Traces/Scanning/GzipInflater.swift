import CZlib
import Foundation

/// Streaming gzip (or raw deflate, as a ZIP entry holds it) decompression over
/// zlib: compressed bytes go in as they are read, decompressed bytes come out
/// at most `limit` at a time, so a small file that inflates enormously (a zip
/// bomb) never needs more memory than one chunk. Concatenated gzip members are
/// read one after another; a raw stream ends at its last block.
final class GzipInflater {
    private var stream = z_stream()
    private var input: [UInt8] = []
    private var inputOffset = 0
    private(set) var memberEnded = false
    private var ready = false
    private let raw: Bool

    /// `raw`: a bare deflate stream (a ZIP entry), else gzip.
    init(raw: Bool = false) throws(TraceError) {
        self.raw = raw
        let status = inflateInit2_(&stream, raw ? -MAX_WBITS : 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw TraceError(.malformed, file: "", reason: "zlib could not start (\(status))") }
        ready = true
    }

    deinit {
        if ready { inflateEnd(&stream) }
    }

    /// Whether every byte given so far has been used.
    var needsInput: Bool { inputOffset >= input.count }

    func feed(_ bytes: Data) {
        input = Array(bytes)
        inputOffset = 0
    }

    /// Up to `limit` decompressed bytes from the input given so far; empty when it needs more input.
    func next(limit: Int) throws(TraceError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: limit)
        var produced = 0
        while produced < limit && inputOffset < input.count {
            if memberEnded {
                if raw { break }
                // Another gzip member follows.
                inflateReset(&stream)
                memberEnded = false
            }
            let available = input.count - inputOffset
            let status: Int32 = input.withUnsafeMutableBufferPointer { inBuffer in
                output.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_in = inBuffer.baseAddress.map { $0 + inputOffset }
                    stream.avail_in = UInt32(available)
                    stream.next_out = outBuffer.baseAddress.map { $0 + produced }
                    stream.avail_out = UInt32(limit - produced)
                    return inflate(&stream, Z_NO_FLUSH)
                }
            }
            let used = available - Int(stream.avail_in)
            let before = produced
            inputOffset += used
            produced = limit - Int(stream.avail_out)
            switch status {
            case Z_OK, Z_BUF_ERROR:
                if used == 0 && produced == before { return Array(output[..<produced]) }
            case Z_STREAM_END:
                memberEnded = true
            default:
                let message = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                throw TraceError(.malformed, file: "", reason: raw ? "corrupt compressed data: \(message)" : "not a valid gzip file: \(message)")
            }
        }
        output.removeSubrange(produced...)
        return output
    }
}
