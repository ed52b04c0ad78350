import BoxProtocol
import Foundation
import Glibc
import Hummingbird
import InputFiles
import Logging
import NIOCore
import QuestCore
import QuestStore

/// `/parent/backups` (BACK-1): the backups the box keeps, one made now, one downloaded, and a
/// restore from an uploaded file with the CLI's own checks (`QuestDatabase.restore`: the
/// current data is backed up first, and a refused file changes nothing). Uploads are streamed
/// to a private file within a stated cap, never held in memory.
struct BackupsController {
    let box: BoxLink
    let forms: PageForms
    let calendar: Calendar
    let clockStyle: ClockStyle
    let logger: Logger
    let sticks: @Sendable () -> [RemovableVolume]
    let backups: any BackupShelf

    /// An upload's cap: five years of play make about 3 MiB.
    static let maximumUploadBytes = 64 << 20

    func addRoutes(to parent: RoomRoutes<WebRequestContext>) {
        parent.get("backups") { request, _ in try page(request, problem: nil) }
        parent.post("backups") { request, _ in
            _ = try await forms.changeForm(request, limit: 1024)
            let made = try self.backups.make(kind: .manual, now: Date())
            return done(.backupMade, made.fileName)
        }
        parent.get("backups/:name") { _, context in try await download(context) }
        // The form is multipart (a file, without JavaScript), so its token comes in the query.
        parent.post("backups/restore") { request, _ in
            try forms.csrf.check(request, sent: request.uri.queryParameters["csrf"].map(String.init))
            let upload: Upload
            do {
                upload = try await Upload.receive(request, into: self.backups, limit: Self.maximumUploadBytes)
            } catch let problem as FieldProblem {
                return try page(request, problem: problem.message, status: .unprocessableContent)
            }
            defer { upload.remove() }
            return try await restore(request, from: upload.path, named: upload.name)
        }
        // BACK-1: a copy on a stick plugged into the box, chosen by the stick's mount and the
        // file's name as the page listed them (never a path from the browser).
        parent.post("backups/restore-stick") { request, _ in
            let form = try await forms.changeForm(request, limit: 1024)
            let stick = form.value("stick").flatMap(Int.init)
            guard let volume = self.sticks().first(where: { $0.mountID == stick }),
                  let copy = BackupStore.offCardCopies(on: volume).first(where: { $0.fileName == form.value("file") })
            else {
                return try page(request, problem: "That copy is not on a stick in the box any more; plug it in again.", status: .unprocessableContent)
            }
            return try await restore(request, from: copy.path, named: "\(copy.fileName) on “\(copy.label)”")
        }
    }

    /// The restore behind both forms: the box holds its buttons while the store is replaced;
    /// during a quest the restore is refused, so a quest is never cut in half (#31).
    func restore(_ request: Request, from path: String, named name: String) async throws -> Response {
        let socket = self.box.socketPath
        let hold = await BackgroundRead.run { HeldBox(BoxHold.take(socketPath: socket)) }
        if case .refused(let reason) = hold.outcome {
            return try page(request, problem: "Not restored: \(reason).", status: .conflict)
        }
        defer { hold.release() }
        do {
            let safety = try self.backups.restore(from: path, now: Date())
            hold.release()
            let box = await self.box.reload().appliedText
            return done(.restored, safety.fileName, box: box)
        } catch let error as StoreError {
            // The CLI's line, naming the file as the parent chose it.
            let message = error.description.replacingOccurrences(of: path, with: name)
            return try page(request, problem: message, status: .unprocessableContent)
        }
    }

    func addAPIRoutes(to parent: RoomRoutes<WebRequestContext>) {
        parent.get("backups") { _, _ in try BackupList(self.backups) }
        parent.post("backups") { request, _ in
            try forms.csrf.check(request, sent: request.headers[CSRFTokens.headerName])
            try self.backups.make(kind: .manual, now: Date())
            return try BackupList(self.backups).json(status: .created)
        }
    }

    func done(_ what: StatusLine, _ file: String, box: String? = nil) -> Response {
        .redirect(to: LocalLink.to("/parent/backups", [("done", what.rawValue), ("file", file), ("box", box)]))
    }

    /// One of the listed backups by its file name (nothing else in or outside the folder),
    /// streamed from the file in 64 KiB pieces (#31: held whole, 24 downloads of a 7.7 MiB
    /// backup at once took the web app from 46 to 232 MiB, past its unit's MemoryMax).
    func download(_ context: WebRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard let backup = try self.backups.all().first(where: { $0.fileName == name }),
              FileManager.default.fileExists(atPath: backup.path)
        else {
            throw HTTPError(.notFound, message: "No such backup.")
        }
        let file = try InputFileStream(path: backup.path)
        // BACK-1: a download is a copy off the box (the weekly reminder waits a week again).
        do { try self.backups.recordDownload(backup, now: Date()) } catch {
            logger.error("recording a backup's download failed", metadata: ["error": "\(error)"])
        }
        return Response(
            status: .ok,
            headers: [.contentType: "application/vnd.sqlite3", .contentDisposition: "attachment; filename=\"\(backup.fileName)\"", .cacheControl: "no-store"],
            body: ResponseBody(contentLength: file.size) { writer in
                // One piece read only once the last was taken by the connection: a slow
                // download holds 64 KiB here, not the file.
                while let piece = try file.next() { try await writer.write(piece) }
                try await writer.finish(nil)
            })
    }

    func page(_ request: Request, problem: String?, status: HTTPResponse.Status = .ok) throws -> Response {
        let list = try self.backups.all()
        // What the last change did: a word from a fixed list, a file only if it is listed.
        let done = request.uri.queryParameters["done"].flatMap { StatusLine(rawValue: String($0)) }?
            .text(backup: request.uri.queryParameters["file"].map(String.init), listed: list.map(\.fileName))
        let box = request.uri.queryParameters["box"].map(String.init)
        let sticks = try self.backups.offCardStatuses()
        let plugged = self.sticks().map { ($0, BackupStore.offCardCopies(on: $0)) }
        return try forms.formPage("parent-backups", for: request, status: status) { csrf in
            var view = BackupsView(backups: list, csrf: csrf, problem: problem, done: done, boxNote: box.map { BoxNote.text($0) },
                                   calendar: self.calendar, clock: clockStyle)
            view.offCard = OffCardView(statuses: sticks, plugged: plugged, calendar: self.calendar, clock: clockStyle)
            return view
        }
    }
}

/// A file sent as `multipart/form-data` in the field `backup`, written to a private file.
struct Upload {
    /// The uploaded backup, in the store's own private file.
    let file: IncomingFile
    /// The name the browser gave, for messages (no folder, no control characters).
    var name: String

    var path: String { file.path }
    func remove() { file.remove() }

    static func receive(_ request: Request, into shelf: any BackupShelf, limit: Int) async throws -> Upload {
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data"),
              let boundaryPart = type.split(separator: ";").first(where: { $0.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("boundary=") }) else {
            throw HTTPError(.unsupportedMediaType, message: "Expected a file upload (multipart/form-data).")
        }
        let boundary = boundaryPart.trimmingCharacters(in: .whitespaces).dropFirst("boundary=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        guard !boundary.isEmpty, boundary.utf8.count <= 200 else { throw HTTPError(.badRequest, message: "The upload's boundary is missing or too long.") }
        let tooLarge = HTTPError(.contentTooLarge, message: "A backup to restore may be at most \(ByteCountText.kibibytes(limit)).")
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit + 64 * 1024 { throw tooLarge }

        // The store's own private file, which its sweep removes should this process be killed.
        let raw = try incoming(shelf)
        defer { raw.remove() }
        var total = 0
        for try await chunk in request.body {
            total += chunk.readableBytes
            guard total <= limit + 64 * 1024 else { throw tooLarge }
            try chunk.readableBytesView.withUnsafeBytes { try write($0, to: raw) }
        }
        raw.finish()
        return try extract(raw.path, size: total, boundary: boundary, limit: limit, into: try incoming(shelf))
    }

    static func incoming(_ shelf: any BackupShelf) throws -> IncomingFile {
        do { return try shelf.incomingFile() } catch { throw HTTPError(.internalServerError, message: "cannot store the upload") }
    }

    static func write(_ bytes: UnsafeRawBufferPointer, to file: IncomingFile) throws {
        do {
            try file.write(bytes)
        } catch .noRoom {
            throw HTTPError(.init(code: 507, reasonPhrase: "Insufficient Storage"), message: "The box has no room for the upload.")
        } catch {
            throw HTTPError(.internalServerError, message: "cannot store the upload")
        }
    }

    /// The first part's content, which must be the field `backup`, copied to its own file.
    static func extract(_ raw: String, size: Int, boundary: String, limit: Int, into target: IncomingFile) throws -> Upload {
        guard let file = FileHandle(forReadingAtPath: raw) else { throw HTTPError(.internalServerError, message: "cannot read the upload") }
        defer { try? file.close() }
        let head = try file.read(upToCount: 16 * 1024) ?? Data()
        let opening = Data(("--" + boundary + "\r\n").utf8)
        guard head.starts(with: opening), let headersEnd = head.range(of: Data("\r\n\r\n".utf8)) else {
            throw HTTPError(.badRequest, message: "The upload is not a multipart form.")
        }
        let headers = String(decoding: head[opening.count..<headersEnd.lowerBound], as: UTF8.self)
        guard headers.range(of: #"name="backup""#) != nil else { throw FieldProblem(field: "backup", message: "Choose a backup file to restore.") }
        // No file chosen: the browser sends an empty file name (and no content).
        let choose = FieldProblem(field: "backup", message: "Choose a backup file to restore.")
        guard let match = headers.firstMatch(of: /filename="([^"]*)"/) else { throw choose }
        let given = String(match.1).split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let name = String(String(given.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.map(Character.init)).prefix(80))
        guard !name.isEmpty else { throw choose }
        let start = headersEnd.upperBound
        // The content ends at the last boundary: look for it in the tail.
        let tailLength = min(size, 512)
        try file.seek(toOffset: UInt64(size - tailLength))
        let tail = try file.read(upToCount: tailLength) ?? Data()
        guard let closing = tail.range(of: Data(("\r\n--" + boundary).utf8), options: .backwards) else {
            throw HTTPError(.badRequest, message: "The upload ended early (no closing boundary).")
        }
        let end = size - tailLength + (closing.lowerBound - tail.startIndex)
        guard end >= start else { throw HTTPError(.badRequest, message: "The upload is not a multipart form.") }
        guard end > start else { throw FieldProblem(field: "backup", message: "\(name): the file is empty") }
        guard end - start <= limit else { throw HTTPError(.contentTooLarge, message: "A backup to restore may be at most \(ByteCountText.kibibytes(limit)).") }
        // A throw leaves `target` to its caller, whose release removes it.
        try file.seek(toOffset: UInt64(start))
        var left = end - start
        while left > 0 {
            let chunk = try file.read(upToCount: min(left, 64 * 1024)) ?? Data()
            guard !chunk.isEmpty else { break }
            try chunk.withUnsafeBytes { try write($0, to: target) }
            left -= chunk.count
        }
        target.finish()
        return Upload(file: target, name: name)
    }
}

/// The backups for the API, newest first.
struct BackupList: ResponseEncodable {
    struct Backup: Codable {
        var fileName: String
        var createdAt: Date
        var sizeBytes: Int
        /// automatic, manual, before-restore, or other (a file someone put there).
        var kind: String
    }

    var backups: [Backup]

    init(_ shelf: any BackupShelf) throws {
        backups = try shelf.all().map {
            Backup(fileName: $0.fileName, createdAt: $0.createdAt, sizeBytes: $0.sizeBytes, kind: $0.kind?.rawValue ?? "other")
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try json(status: .ok)
    }

    /// Dates as ISO 8601, as the API document says.
    func json(status: HTTPResponse.Status) throws -> Response {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return try json(status: status, encoder: encoder)
    }
}

struct BackupsView: Encodable {
    struct Row: Encodable {
        var fileName: String
        var when: String
        var kind: String
        var size: String
        var link: String
    }

    var csrf: String
    var rows: [Row]
    var noBackups: Bool
    var status: String
    var statusIsWarning: Bool
    var problem: String?
    var done: String?
    var boxNote: String?
    var maximum: String
    var offCard: OffCardView

    init(backups: [BackupInfo], csrf: String, problem: String?, done: String?, boxNote: String?, calendar: Calendar, clock: ClockStyle, now: Date = Date()) {
        self.csrf = csrf
        offCard = OffCardView(statuses: [], plugged: [], calendar: calendar, clock: clock)
        // #48: one clock format on every surface, the box's own ("today 07:30", "Sun 22 Nov 07:30").
        func when(_ date: Date) -> String { CalendarWords.day(date, now: now, calendar: calendar, clock: clock) }
        rows = backups.map { b in
            let kind = switch b.kind {
            case .automatic?: "daily"
            case .manual?: "made by hand"
            case .beforeRestore?: "before a restore"
            case nil: "other"
            }
            let escapedName = b.fileName.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? ""
            return Row(fileName: b.fileName, when: when(b.createdAt), kind: kind, size: ByteText.format(b.sizeBytes),
                       link: "/parent/backups/" + escapedName)
        }
        noBackups = backups.isEmpty
        let lastDaily = backups.filter { $0.kind == .automatic }.map(\.createdAt).max()
        if let lastDaily {
            let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: lastDaily), to: calendar.startOfDay(for: now)).day ?? 0
            status = days <= 0 ? "The daily backup ran today at \(clock.text(ClockTime(of: lastDaily, calendar: calendar)))."
                : "The last daily backup is from \(when(lastDaily)), \(days) day\(days == 1 ? "" : "s") ago."
            statusIsWarning = days > 1
        } else {
            status = "No daily backup yet: the box makes one each day while it runs."
            statusIsWarning = true
        }
        self.problem = problem
        self.done = done
        self.boxNote = boxNote
        maximum = ByteCountText.kibibytes(BackupsController.maximumUploadBytes)
    }
}

/// BACK-1, off the card: what each stick got last, and the copies on the sticks plugged in now.
struct OffCardView: Encodable {
    struct Stick: Encodable {
        var label: String
        var line: String
        var isWarning: Bool
    }
    struct Copy: Encodable {
        var fileName: String
        var when: String
        var size: String
        var stick: Int
    }
    struct Plugged: Encodable {
        var label: String
        var copies: [Copy]
        var noCopies: Bool
    }

    var sticks: [Stick]
    var plugged: [Plugged]
    var nothingPlugged: Bool
    var kept = BackupStore.offCardCopiesKept

    init(statuses: [OffCardStatus], plugged: [(RemovableVolume, [OffCardCopy])], calendar: Calendar, clock: ClockStyle, now: Date = Date()) {
        func when(_ date: Date) -> String { CalendarWords.day(date, now: now, calendar: calendar, clock: clock) }
        sticks = statuses.map { s in
            let copied = s.copiedAt.map { at in
                "last copy \(when(at))\(s.sizeBytes.map { " (\(ByteText.format($0)))" } ?? "")"
            } ?? "no copy yet"
            // A failure newer than the last copy is what the parent must act on.
            if let problem = s.problem, let at = s.problemAt, at >= (s.copiedAt ?? .distantPast) {
                return Stick(label: s.label, line: "\(copied); \(when(at)) the copy failed: \(problem)", isWarning: true)
            }
            return Stick(label: s.label, line: copied, isWarning: false)
        }
        self.plugged = plugged.map { volume, copies in
            Plugged(
                label: volume.label,
                copies: copies.map { Copy(fileName: $0.fileName, when: when($0.createdAt), size: ByteText.format($0.sizeBytes), stick: volume.mountID) },
                noCopies: copies.isEmpty)
        }
        nothingPlugged = plugged.isEmpty
    }
}

/// A `BoxHold` handed between threads: its socket is used by one thread at a time (taken on
/// a background thread, released once by the request that took it).
final class HeldBox: @unchecked Sendable {
    let outcome: BoxHold.Outcome
    private var released = false

    init(_ outcome: BoxHold.Outcome) { self.outcome = outcome }

    func release() {
        guard !released else { return }
        released = true
        if case .held(let hold) = outcome { hold.release() }
    }
}

/// A backup file read in 64 KiB pieces for a download (a regular file only; closed when
/// read to its end or released).
final class InputFileStream: @unchecked Sendable {
    let size: Int
    private let handle: FileHandle
    private var left: Int

    init(path: String) throws {
        let file = try InputFile.openRegular(path, maximumBytes: Int.max)
        size = file.size
        left = file.size
        handle = FileHandle(fileDescriptor: dup(file.descriptor), closeOnDealloc: true)
    }

    func next() throws -> ByteBuffer? {
        guard left > 0 else { return nil }
        let data = try handle.read(upToCount: min(left, 64 * 1024)) ?? Data()
        guard !data.isEmpty else { return nil }
        left -= data.count
        return ByteBuffer(bytes: data)
    }
}
