import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import QuestCore
import QuestStore
import TestSupport
import Testing
@testable import WebApp

/// The part of JSON Schema the API document uses: type (with null), required, properties,
/// items, $ref, oneOf, enum, minimum, maximum, pattern, additionalProperties: false. Returns the places a value breaks it.
struct SchemaCheck {
    let document: [String: Any]

    func problems(_ value: Any?, _ schema: [String: Any], at path: String = "$") -> [String] {
        if let ref = schema["$ref"] as? String {
            let name = String(ref.split(separator: "/").last ?? "")
            let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
            guard let target = schemas?[name] as? [String: Any] else { return ["\(path): unknown \(ref)"] }
            return problems(value, target, at: path)
        }
        if let options = schema["oneOf"] as? [[String: Any]] {
            let passing = options.filter { problems(value, $0, at: path).isEmpty }.count
            return passing == 1 ? [] : ["\(path): matches \(passing) of oneOf"]
        }
        var found: [String] = []
        let types = (schema["type"] as? [String]) ?? (schema["type"] as? String).map { [$0] } ?? []
        if !types.isEmpty && !types.contains(where: { Self.matches(value, $0) }) {
            return ["\(path): \(String(describing: value)) is not \(types)"]
        }
        if let allowed = schema["enum"] as? [String], let v = value as? String, !allowed.contains(v) { found.append("\(path): \(v) not in \(allowed)") }
        if !Self.isBoolean(value), let n = (value as? NSNumber)?.doubleValue {
            if let min = Self.number(schema["minimum"]), n < min { found.append("\(path): \(n) < \(min)") }
            if let max = Self.number(schema["maximum"]), n > max { found.append("\(path): \(n) > \(max)") }
        }
        if let pattern = schema["pattern"] as? String, let s = value as? String, s.range(of: pattern, options: .regularExpression) == nil {
            found.append("\(path): \(s) does not match \(pattern)")
        }
        if let object = value as? [String: Any] {
            for key in schema["required"] as? [String] ?? [] where object[key] == nil { found.append("\(path).\(key): missing") }
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            for (key, sub) in properties where object[key] != nil {
                found += problems(object[key], sub, at: "\(path).\(key)")
            }
            if schema["additionalProperties"] as? Bool == false {
                for key in object.keys.sorted() where properties[key] == nil { found.append("\(path).\(key): not in the schema") }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (i, item) in array.enumerated() { found += problems(item, items, at: "\(path)[\(i)]") }
        }
        return found
    }

    /// A bound as written in a parsed document (NSNumber) or a Swift literal.
    static func number(_ value: Any?) -> Double? {
        switch value {
        case let i as Int: Double(i)
        case let d as Double: d
        case let n as NSNumber: n.doubleValue
        default: nil
        }
    }

    /// JSONSerialization gives booleans as NSNumbers of C type `c`, which no JSON number gets.
    static func isBoolean(_ value: Any?) -> Bool { (value as? NSNumber).map { String(cString: $0.objCType) == "c" } ?? false }

    static func matches(_ value: Any?, _ type: String) -> Bool {
        switch type {
        case "null": value == nil || value is NSNull
        case "boolean": isBoolean(value)
        case "integer": !isBoolean(value) && (value as? NSNumber).map { $0.doubleValue == $0.doubleValue.rounded() } ?? false
        case "number": !isBoolean(value) && value is NSNumber
        case "string": value is String
        case "array": value is [Any]
        case "object": value is [String: Any]
        default: false
        }
    }
}

@Suite("Web app: the API document")
struct OpenAPITests {
    @Test("/api/openapi.json describes every /api route, and every answer of a played store keeps to its schema")
    func documentMatchesRoutes() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        let now = Date()
        for days in [20, 13, 9, 8, 6, 5, 3, 2, 1, 0] {
            try recordQuest(db, at: now.addingTimeInterval(-Double(days) * 86_400 - 600), durations: [(60, 75)], routine: everyDay)
        }
        // A box answers on the socket, so changes that ask it (the wiring check) get a 2xx.
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let services = try await makeServices(args, logger: Logger(label: "test"))
        let apiRoutes = buildRouter(services).routes.filter { "\($0.path)".hasPrefix("/api/v1") }.map { "\($0.method) \($0.path)" }.sorted()
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            let document = try await client.execute(uri: "/api/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                return try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            }
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            let documented = paths.flatMap { path, operations in operations.keys.map { "\($0.uppercased()) \(path)" } }.sorted()
            #expect(documented == apiRoutes, "documented \(documented), served \(apiRoutes)")
            let check = SchemaCheck(document: document)
            var browser = BrowserSession()
            try await browser.openAPISession(client)
            // Signed in as the parent first (the document's example PIN), so every answer is a real one.
            try db.parentPIN.setPIN("2468")
            try await browser.signInThroughAPI(client, pin: "2468")
            #expect(browser.cookies[ParentSessions.cookieName] != nil)
            // Every operation, removals last (they take away the routine the others name).
            let operations = paths.flatMap { path, operations in operations.map { (path, $0.key, $0.value) } }
                .sorted { ($0.1 == "delete" ? 1 : 0, $0.0, $0.1) < ($1.1 == "delete" ? 1 : 0, $1.0, $1.1) }
            for (path, method, operation) in operations {
                let operation = try #require(operation as? [String: Any])
                let responses = try #require(operation["responses"] as? [String: Any])
                // A change is sent with the example the document gives and must get a documented 2xx.
                let successes = responses.keys.filter { $0.hasPrefix("2") }
                #expect(!successes.isEmpty, "\(method) \(path) documents its success")
                var headers = browser.cookieHeader
                var body: ByteBuffer?
                if method == "post" {
                    let request = ((operation["requestBody"] as? [String: Any])?["content"] as? [String: Any])?["application/json"] as? [String: Any]
                    let example = try #require(request?["example"], "\(path): a change documents an example")
                    #expect(check.problems(example, try #require(request?["schema"] as? [String: Any])).isEmpty, "\(path): its example")
                    body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: example))
                }
                if method != "get" { headers = browser.jsonHeaders() }
                let uri = path.replacingOccurrences(of: "{id}", with: everyDay.id.uuidString)
                try await client.execute(uri: uri, method: HTTPRequest.Method(method.uppercased()) ?? .get, headers: headers, body: body) { response in
                    let status = "\(response.status.code)"
                    #expect(successes.contains(status), "\(method) \(path): \(status) is not one of \(successes)")
                    let ok = responses[status] as? [String: Any]
                    let schema = try #require(((ok?["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any])
                    let answer = try JSONSerialization.jsonObject(with: Data(buffer: response.body))
                    let problems = check.problems(answer, schema)
                    #expect(problems.isEmpty, "\(method) \(path): \(problems)")
                }
            }
        }
    }

    @Test("the schema check itself fails on a missing field, a wrong type, an unknown enum value, a broken pattern")
    func schemaCheckCatches() {
        let document: [String: Any] = ["components": ["schemas": ["D": ["type": "string", "pattern": "^[0-9]{4}$"]]]]
        let schema: [String: Any] = [
            "type": "object", "required": ["a", "b"],
            "properties": ["a": ["type": "integer", "minimum": 0], "p": ["type": "string", "enum": ["pause", "joker"]], "d": ["$ref": "#/components/schemas/D"]],
        ]
        let check = SchemaCheck(document: document)
        #expect(check.problems(["a": 1, "b": true, "p": "pause", "d": "2026"], schema).isEmpty)
        #expect(check.problems(["a": 1], schema) == ["$.b: missing"])
        #expect(check.problems(["a": 1.5, "b": 1], schema).count == 1)
        #expect(check.problems(["a": -1, "b": 1], schema) == ["$.a: -1.0 < 0.0"])
        #expect(check.problems(["a": 1, "b": 1, "p": "reset"], schema).count == 1)
        #expect(check.problems(["a": 1, "b": 1, "d": "26"], schema).count == 1)
        #expect(check.problems(["a": true, "b": 1], schema).count == 1, "a boolean is no integer")
        var closed = schema
        closed["additionalProperties"] = false
        #expect(check.problems(["a": 1, "p": "pause"], closed) == ["$.b: missing"])
        #expect(check.problems(["a": 1, "extra": 2, "p": "pause"], closed) == ["$.b: missing", "$.extra: not in the schema"])
    }
}
