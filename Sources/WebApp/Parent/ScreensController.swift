import Foundation
import Hummingbird
import QuestCore

/// `/parent/screens` (#33): every screen the box can show, drawn as the kiosk draws it, one
/// page each, so a parent sees what the display beside the box will say (and the browser test
/// checks that every line of each fits its glass at 800×480, 1024×600 and 1920×1080).
struct ScreensController {
    let resources: WebResources

    func addRoutes(to parent: RoomRoutes<WebRequestContext>) {
        parent.get("screens") { _, _ in
            try resources.page("parent-screens", ["screens": KioskSamples.all.map { ["name": $0.name, "title": $0.title] }])
        }
        parent.get("screens/:name") { _, context in
            guard let name = context.parameters.get("name"), var view = KioskSamples.all.first(where: { $0.name == name })?.view else {
                throw HTTPError(.notFound, message: "No screen of that name.")
            }
            view.preview = true
            return try resources.page("kiosk", view)
        }
    }
}

/// The gallery's screens as the kiosk draws them, and the offline page.
enum KioskSamples {
    struct Sample {
        var name: String
        var title: String
        var view: KioskView
    }

    static let all: [Sample] = ScreenSamples.gallery.map { Sample(name: $0.name, title: $0.title, view: KioskView($0.screen, notice: $0.notice)) }
        + [Sample(name: "offline", title: "The box is offline", view: KioskView(.offline(reason: "not running")))]
}
