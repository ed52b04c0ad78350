import Foundation

/// The part of JSON Schema (2020-12) that docs/box-protocol.schema.json uses: type, enum,
/// properties, required, additionalProperties: false, items, minimum/maximum, pattern, oneOf
/// and local $ref. Returns the problems found ("" path for the root); empty when valid.
struct SchemaValidator {
    let root: [String: Any]

    init(file: String) throws {
        guard let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        root = object
    }

    func problems(_ value: Any, against schema: [String: Any]? = nil, at path: String = "") -> [String] {
        let schema = schema ?? root
        if let ref = schema["$ref"] as? String {
            guard let target = resolve(ref) else { return ["\(path): unknown $ref \(ref)"] }
            return problems(value, against: target, at: path)
        }
        if let options = schema["oneOf"] as? [[String: Any]] {
            let matching = options.filter { problems(value, against: $0, at: path).isEmpty }.count
            return matching == 1 ? [] : ["\(path): matches \(matching) of the oneOf choices"]
        }
        var found: [String] = []
        if let allowed = schema["enum"] as? [Any], !allowed.contains(where: { isEqual($0, value) }) {
            found.append("\(path): \(value) is not one of \(allowed)")
        }
        if let type = schema["type"] as? String, !hasType(value, type) { return found + ["\(path): expected \(type), got \(value)"] }
        if let number = value as? NSNumber, !isBool(value) {
            if let min = schema["minimum"] as? Double, number.doubleValue < min { found.append("\(path): \(number) < \(min)") }
            if let max = schema["maximum"] as? Double, number.doubleValue > max { found.append("\(path): \(number) > \(max)") }
        }
        if let pattern = schema["pattern"] as? String, let text = value as? String,
           text.range(of: pattern, options: .regularExpression) == nil {
            found.append("\(path): \(text) does not match \(pattern)")
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for key in schema["required"] as? [String] ?? [] where object[key] == nil { found.append("\(path).\(key): missing") }
            for (key, member) in object {
                if let sub = properties[key] as? [String: Any] {
                    found += problems(member, against: sub, at: "\(path).\(key)")
                } else if schema["additionalProperties"] as? Bool == false {
                    found.append("\(path).\(key): not allowed")
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (i, member) in array.enumerated() { found += problems(member, against: items, at: "\(path)[\(i)]") }
        }
        return found
    }

    func resolve(_ ref: String) -> [String: Any]? {
        guard ref.hasPrefix("#/") else { return nil }
        var node: Any = root
        for part in ref.dropFirst(2).split(separator: "/") {
            guard let next = (node as? [String: Any])?[String(part)] else { return nil }
            node = next
        }
        return node as? [String: Any]
    }

    func isBool(_ v: Any) -> Bool {
        // JSONSerialization gives true/false as NSNumbers of ObjC type "c" (char).
        guard let n = v as? NSNumber else { return false }
        return String(cString: n.objCType) == "c"
    }

    func hasType(_ v: Any, _ type: String) -> Bool {
        switch type {
        case "object": v is [String: Any]
        case "array": v is [Any]
        case "string": v is String
        case "boolean": isBool(v)
        case "integer": (v as? NSNumber).map { !isBool(v) && $0.doubleValue == $0.doubleValue.rounded() } ?? false
        case "number": v is NSNumber && !isBool(v)
        default: false
        }
    }

    func isEqual(_ a: Any, _ b: Any) -> Bool {
        if let x = a as? String, let y = b as? String { return x == y }
        if let x = a as? NSNumber, let y = b as? NSNumber { return x == y }
        return false
    }
}
