import CGPIOD
import QuestCore

/// What a press of each button lights the moment its edge is read (#49): the loop arms it from
/// the machine's reflex once a step has settled, and the read that brings a press sets its
/// LED before the loop's Swift sees the edge. Kept in C memory (`qb_press_lights`), so the
/// read builds nothing; mirrored here for requests that are not libgpiod's (the fakes).
final class PressLights {
    struct Light {
        let input: GPIORequest
        let offset: UInt32
        let fromNanos: Int64
        /// The colour, and its lines' values in `offsets`' order.
        let color: LEDColor
        let values: [Bool]
    }

    let table: UnsafeMutablePointer<qb_press_lights>
    let outputs: GPIORequest
    let offsets: [UInt32]
    private(set) var lights: [Light] = []

    /// Nil when the lines are more than `QB_LIGHT_LINES`.
    init?(outputs: GPIORequest, offsets: [UInt32]) {
        guard !offsets.isEmpty, offsets.count <= Int(QB_LIGHT_LINES) else { return nil }
        self.outputs = outputs
        self.offsets = offsets
        table = .allocate(capacity: 1)
        table.initialize(to: qb_press_lights())
        table.pointee.outputs = (outputs as? LiveGPIORequest)?.handle
        table.pointee.count = offsets.count
        withUnsafeMutableBytes(of: &table.pointee.offsets) { raw in
            for (i, offset) in offsets.enumerated() { raw.storeBytes(of: offset, toByteOffset: i * 4, as: UInt32.self) }
        }
    }

    deinit { table.deallocate() }

    /// Lights for these presses only (at most `QB_LIGHT_BUTTONS`; none disarms them all).
    func arm(_ lights: [Light]) {
        self.lights = Array(lights.prefix(Int(QB_LIGHT_BUTTONS)))
        table.pointee.light_count = self.lights.count
        withUnsafeMutableBytes(of: &table.pointee.lights) { raw in
            let entries = raw.bindMemory(to: qb_press_light.self)
            for (i, light) in self.lights.enumerated() {
                var entry = qb_press_light()
                entry.input = (light.input as? LiveGPIORequest)?.handle
                entry.offset = light.offset
                entry.armed = entry.input == nil ? 0 : 1
                entry.from_ns = UInt64(max(0, light.fromNanos))
                withUnsafeMutableBytes(of: &entry.values) { values in
                    for (k, on) in light.values.enumerated() { values.storeBytes(of: Int32(on ? 1 : 0), toByteOffset: k * 4, as: Int32.self) }
                }
                entries[i] = entry
            }
        }
    }

    /// The light a press edge read from `request` sets (as the C side decides it).
    func light(for edge: GPIOEdge, from request: GPIORequest) -> Int? {
        guard edge.rising else { return nil }
        guard let i = lights.firstIndex(where: { $0.input === request && $0.offset == edge.offset }) else { return nil }
        return edge.timestampNanos >= lights[i].fromNanos ? i : nil
    }
}

extension GPIORequest {
    /// The edges, and the first one's light set by this process (the fakes' way; libgpiod's
    /// request does both in one C call).
    func readEdges(from descriptor: Int32, lighting: PressLights?) throws -> (edges: [GPIOEdge], lit: Int?) {
        let edges = try readEdges(from: descriptor)
        guard let lighting, let first = edges.first, let i = lighting.light(for: first, from: self) else { return (edges, nil) }
        do {
            try lighting.outputs.setValues(Array(zip(lighting.offsets, lighting.lights[i].values)))
            return (edges, i)
        } catch {
            return (edges, nil)
        }
    }
}
