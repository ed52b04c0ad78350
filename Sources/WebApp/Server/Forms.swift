import Foundation
import Hummingbird
import NIOCore

/// A submitted HTML form (`application/x-www-form-urlencoded`), read with a cap on its size
/// and on its number of fields. Keys may repeat (`day=2&day=3`), in order.
struct FormBody: Sendable {
    var fields: [(name: String, value: String)]

    /// What one small form may weigh: a quest or routine with 50 tasks of 80 characters fits.
    static let maximumBytes = 32 * 1024
    static let maximumFields = 300

    /// All values of `name`, in the order sent.
    func values(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }
    /// The first value of `name`.
    func value(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// Reads the request's form: 415 for another content type, 413 past `limit`, 400 for a
    /// body that is not a form.
    static func read(_ request: Request, limit: Int = maximumBytes) async throws -> FormBody {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/x-www-form-urlencoded" else {
            throw HTTPError(.unsupportedMediaType, message: "Expected a form (application/x-www-form-urlencoded).")
        }
        return try parse(String(buffer: try await collect(request, limit: limit, what: "A form")))
    }

    /// The whole body, or 413 naming the cap (checked on the declared length first, then
    /// while reading, so a body that lies about its length is cut off too).
    static func collect(_ request: Request, limit: Int, what: String) async throws -> ByteBuffer {
        let tooLarge = HTTPError(.contentTooLarge, message: "\(what) may be at most \(ByteCountText.kibibytes(limit)).")
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit { throw tooLarge }
        do {
            return try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw tooLarge
        }
    }

    static func parse(_ text: String) throws -> FormBody {
        var fields: [(String, String)] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            guard fields.count < maximumFields else { throw HTTPError(.contentTooLarge, message: "More than \(maximumFields) fields in one form.") }
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else {
                throw HTTPError(.badRequest, message: "The form is not correctly encoded.")
            }
            fields.append((name, value))
        }
        return FormBody(fields: fields)
    }

    static func decode(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}

/// A request that fails in a way the person can fix: shown as a plain page (HTML forms) or as
/// `{"error": …, "field": …}` (the API).
struct FieldProblem: Error, Sendable {
    var field: String
    var message: String
}

enum ByteCountText {
    /// "32 KiB", "8 MiB".
    static func kibibytes(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
    }
}
