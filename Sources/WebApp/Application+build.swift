import BoxProtocol
import CEventLoop
import Foundation
import Hashing
import InputFiles
import Hummingbird
import Logging
import QuestStore
import QuestCore
import QuestReports
import SystemClock

/// What `questbox web` is started with.
public protocol AppArguments: Sendable {
    var hostname: String { get }
    var port: Int { get }
    /// The box's SQLite store (the one truth the daemon writes too).
    var databasePath: String { get }
    var socketPath: String { get }
    var resourcesDirectory: String { get }
    /// How long a connection may take and how many there may be (#31).
    var connectionLimits: ConnectionLimits { get }
}

extension AppArguments {
    public var connectionLimits: ConnectionLimits { ConnectionLimits() }
}

/// Everything the app's parts are made from, one per process; `buildRouter` gives each
/// controller only what it uses (#49).
public struct WebServices: Sendable {
    public let database: QuestDatabase
    public let box: BoxLink
    public let resources: WebResources
    public let calendar: Calendar
    /// #48: how pages write a time of day, the box's locale's (`SystemLocale`).
    public let clockStyle: ClockStyle
    public let logger: Logger
    /// The key behind this process's CSRF tokens.
    let csrf = CSRFTokens()
    /// Signed-in parents, and the PIN checks that sign them in (one at a time).
    let parents: ParentSessions
    let pinChecks: PINChecks
    /// One relay of the box's screens for every open kiosk page.
    let kioskEvents: BoxEventRelay
    /// One relay of the box's presses for every open wiring page (holding a button check).
    let wiringEvents: BoxEventRelay
    /// The first-run proof of being at the box.
    let presence: PresenceCheck
    /// Touch kiosks asking to be paired (#33), until a parent enters their code.
    let kioskPairing: KioskPairingRequests
    /// PRIV-1: her phone pairing itself with a code the box gives.
    let phonePairing: PhonePairing
    /// The paired kiosks' presses, to the box in order, with the buttons each holds (#33).
    let kioskPresses: KioskPresses
    /// Whether the player's pages answer only paired browsers (#33, `web.player-pages`).
    let playerPages: PlayerPagesSetting
    /// `questbox doctor`, run for the health page.
    let doctor: DoctorRunner
    /// The names a request's Host may carry (#31: DNS rebinding).
    let hostNames: AllowedHostNames
    /// How many quests of her own the player makes, and how fast (#31).
    let playerQuests: PlayerQuestLimits
    /// The player's home and stats as last read (at most once per 2 s).
    let reads: PlayerPageReads
    /// BACK-1: the USB sticks mounted now (tests give a folder standing in for one).
    var sticks: @Sendable () -> [RemovableVolume]
    /// The paired browsers' records (the store's; tests may give a fake to the pages, while the
    /// presence check, made in `init`, keeps asking the store).
    var pairedBrowsers: any PairedBrowserStore
    /// The family's routines and the player's own quests (the store's; tests may give a fake).
    var routines: any RoutineLibrary
    /// The backups (the store's; tests may give a fake).
    var backups: any BackupShelf
    /// The settings, the player's switches (the store's; tests may give a fake).
    var settings: any FamilySettings
    /// The parent's PIN and its reset (the store's; tests may give a fake).
    var pins: any ParentPINStore
    /// The box's start, last play and house (the store's; tests may give a fake).
    var records: any BoxRecords
    /// The plays a day of her stats shows (the store's; tests may give a fake).
    var plays: any PlayHistory

    /// The templates and the forms' CSRF key, for controllers with pages.
    var forms: PageForms { PageForms(resources: resources, csrf: csrf) }

    /// The page her pages give a browser that is not paired.
    var pairedOnly: PairedOnlyPage { PairedOnlyPage(forms: forms, kioskPairing: kioskPairing, phonePairing: phonePairing) }

    /// PAR-2's resets as the parent's pages and the first-run page settle them.
    var pinResets: PINResets { PINResets(pins: pins, parents: parents, clock: presence.clock, logger: logger) }

    /// This process changed the store: the next pages read it anew.
    func forgetRecentReads() {
        reads.forget()
        playerPages.forget()
    }

    init(database: QuestDatabase, box: BoxLink, resources: WebResources, calendar: Calendar, logger: Logger, clock: any SystemClock,
         clockStyle: ClockStyle) {
        self.database = database
        self.box = box
        self.resources = resources
        self.calendar = calendar
        self.clockStyle = clockStyle
        self.logger = logger
        parents = ParentSessions(clock: clock)
        let pairedBrowsers = database.kiosks
        self.pairedBrowsers = pairedBrowsers
        routines = database.routines
        backups = database.backups
        settings = StoreFamilySettings(database: database)
        pins = database.parentPIN
        records = database
        plays = database.plays
        pinChecks = PINChecks(database: database, clock: clock)
        let reads = PlayerPageReads(database: database, resources: resources, calendar: calendar, clockStyle: clockStyle)
        self.reads = reads
        // #33: a quest that ends on the box (its summary, or the quest list again) was written
        // before the box showed it: the player's pages read the store anew from then on.
        let kioskEvents = BoxEventRelay(socketPath: box.socketPath, channel: .kiosk) { m in
            guard m.event == "screen", let kind = m.screen?.kind, kind == "summary" || kind == "idle" else { return }
            reads.forget()
        }
        self.kioskEvents = kioskEvents
        // A wiring page that went away is noticed within 2 s, so the box gets its buttons back.
        wiringEvents = BoxEventRelay(socketPath: box.socketPath, channel: .wiring, retryMs: 5_000, keepAliveMs: 2_000)
        kioskPairing = KioskPairingRequests(clock: clock)
        kioskPresses = KioskPresses(box: box)
        phonePairing = PhonePairing(clock: clock, box: box, logger: logger)
        playerPages = PlayerPagesSetting(database: database, clock: clock)
        presence = PresenceCheck(
            clock: clock, socketPath: box.socketPath, logger: logger,
            hasGlass: { (try? pairedBrowsers.all().contains { $0.canPress }) ?? false },
            onCodeChange: { kioskEvents.setupWaiting($0) })
        doctor = DoctorRunner(program: SiblingProgram.path(of: "questbox"), dataDirectory: (database.path as NSString).deletingLastPathComponent)
        hostNames = AllowedHostNames(database: database, clock: clock)
        playerQuests = PlayerQuestLimits(clock: clock)
        let folder = (database.path as NSString).deletingLastPathComponent
        sticks = { RemovableVolumes.mounted(excludingFileSystemOf: folder) }
    }
}

/// The web app: one router, a controller per area (player pages, kiosk, JSON API).
public func buildApplication(_ arguments: some AppArguments, logger: Logger? = nil) async throws -> some ApplicationProtocol {
    let logger = logger ?? Logger(label: "questbox-web")
    let services = try await makeServices(arguments, logger: logger)
    let router = buildRouter(services)
    return WebServer(
        responder: router.buildResponder(),
        configuration: .init(address: .hostname(arguments.hostname, port: arguments.port), serverName: "questbox"),
        logger: logger, limits: arguments.connectionLimits)
}

func makeServices(_ arguments: some AppArguments, logger: Logger, clock: any SystemClock = LiveSystemClock(),
                  clockStyle: ClockStyle = .ofThisBox()) async throws -> WebServices {
    // The web opens the store as a reader and writer of small transactions. On a fresh
    // install it may start first: it then creates the store as the box does, with the same
    // migrations under the same folder lock (#32: the first run is done from a phone).
    let database = try QuestDatabase(path: arguments.databasePath, footprint: .small)
    // Forms' tokens and the PIN need libcrypto: without it the app says so now, not at a form.
    try Hashing.load()
    return WebServices(
        database: database, box: BoxLink(socketPath: arguments.socketPath),
        resources: try await WebResources(directory: arguments.resourcesDirectory), calendar: .current, logger: logger, clock: clock, clockStyle: clockStyle)
}

func buildRouter(_ services: WebServices) -> Router<WebRequestContext> {
    buildRouter(services, rooms: RouteRooms())
}

/// The router, with every route in a room (`Rooms.swift`): `open`, `player` or `parent`.
/// Each controller and the gate is given only what it uses (#49), as in Hummingbird's
/// examples: what one can touch is read off its fields, and a test can hand it fakes.
func buildRouter(_ services: WebServices, rooms: RouteRooms) -> Router<WebRequestContext> {
    // HEAD answers as GET without a body, through the same room (#47).
    let router = Router(context: WebRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: SecurityHeadersMiddleware())
    router.add(middleware: ErrorPageMiddleware(logger: services.logger))
    router.add(middleware: HostCheckMiddleware(names: services.hostNames))
    router.add(middleware: RoomGate(
        parents: services.parents, playerPages: services.playerPages, pairedBrowsers: services.pairedBrowsers,
        pinResets: services.pinResets, forgetRecentReads: { services.forgetRecentReads() }, pairedOnly: services.pairedOnly,
        rooms: rooms
    ))
    let open = RoomRoutes(.open, in: rooms, on: router.group())
    let player = RoomRoutes(.player, in: rooms, on: router.group())
    let api = open.group("api/v1")
    let playerAPI = player.group("api/v1")
    let firstRun = FirstRunController(
        box: services.box, forms: services.forms, calendar: services.calendar, clockStyle: services.clockStyle,
        logger: services.logger, settings: services.settings, records: services.records
    )
    PlayerController(resources: services.resources, reads: services.reads).addRoutes(to: player)
    MeController(box: services.box, forms: services.forms, routines: services.routines, settings: services.settings).addRoutes(to: player)
    firstRun.addRoutes(to: open)
    KioskController(
        box: services.box, forms: services.forms, kioskEvents: services.kioskEvents, presence: services.presence,
        kioskPairing: services.kioskPairing, kioskPresses: services.kioskPresses, pairedBrowsers: services.pairedBrowsers
    ).addRoutes(to: open)
    PhonePairingController(
        forms: services.forms, logger: services.logger, phonePairing: services.phonePairing,
        pairedBrowsers: services.pairedBrowsers, forgetRecentReads: { services.forgetRecentReads() },
        pairedOnly: services.pairedOnly
    ).addRoutes(to: open)
    SetupController(
        forms: services.forms, logger: services.logger, parents: services.parents, pinChecks: services.pinChecks,
        presence: services.presence, settings: services.settings, pins: services.pins, pinResets: services.pinResets
    ).addRoutes(to: open)
    APIController(box: services.box, forms: services.forms, reads: services.reads).addRoutes(to: api, player: playerAPI)
    let stats = StatsController(
        resources: services.resources, calendar: services.calendar, reads: services.reads, settings: services.settings,
        plays: services.plays
    )
    stats.addRoutes(to: player)
    stats.addAPIRoutes(to: playerAPI)
    let quests = QuestsController(
        box: services.box, forms: services.forms, calendar: services.calendar, playerQuests: services.playerQuests,
        routines: services.routines, settings: services.settings
    )
    quests.addRoutes(to: player)
    quests.addAPIRoutes(to: playerAPI)
    let parent = ParentController(
        box: services.box, forms: services.forms, calendar: services.calendar, clockStyle: services.clockStyle,
        logger: services.logger, parents: services.parents, pinChecks: services.pinChecks, reads: services.reads,
        routines: services.routines, settings: services.settings, pins: services.pins, records: services.records,
        pinResets: services.pinResets, firstRun: firstRun
    )
    parent.addRoutes(to: open)
    parent.addAPIRoutes(to: api)
    // The parent's area past the PIN: pages and their API.
    let parentRoom = RoomRoutes(.parent, in: rooms, on: router.group())
    let signedIn = parentRoom.group("parent").add(middleware: ForgetRecentReads(forget: { services.forgetRecentReads() }))
    let signedInAPI = parentRoom.group("api/v1/parent").add(middleware: ForgetRecentReads(forget: { services.forgetRecentReads() }))
    parent.addSignedInRoutes(to: signedIn)
    let routines = RoutinesController(
        box: services.box, forms: services.forms, calendar: services.calendar, clockStyle: services.clockStyle,
        routines: services.routines, settings: services.settings
    )
    routines.addRoutes(to: signedIn)
    routines.addAPIRoutes(to: signedInAPI)
    let settings = SettingsController(
        box: services.box, forms: services.forms, calendar: services.calendar, routines: services.routines,
        settings: services.settings
    )
    settings.addRoutes(to: signedIn)
    settings.addAPIRoutes(to: signedInAPI)
    let backups = BackupsController(
        box: services.box, forms: services.forms, calendar: services.calendar, clockStyle: services.clockStyle,
        logger: services.logger, sticks: services.sticks, backups: services.backups
    )
    backups.addRoutes(to: signedIn)
    backups.addAPIRoutes(to: signedInAPI)
    let wiring = WiringController(box: services.box, forms: services.forms, wiringEvents: services.wiringEvents)
    wiring.addRoutes(to: signedIn)
    wiring.addAPIRoutes(to: signedInAPI)
    ScreensController(resources: services.resources).addRoutes(to: signedIn)
    KiosksController(
        forms: services.forms, calendar: services.calendar, logger: services.logger, kioskPairing: services.kioskPairing,
        kioskPresses: services.kioskPresses, pairedBrowsers: services.pairedBrowsers
    ).addRoutes(to: signedIn)
    let health = HealthController(
        box: services.box, resources: services.resources, calendar: services.calendar, clockStyle: services.clockStyle,
        doctor: services.doctor, settings: services.settings, records: services.records
    )
    health.addRoutes(to: signedIn)
    health.addAPIRoutes(to: signedInAPI)
    OpenAPIController(resources: services.resources).addRoutes(to: open)
    AssetsController(resources: services.resources).addRoutes(to: open.group("assets"))
    return router
}

/// A read of the store on a thread of its own at a lower priority (nice 10): it blocks for
/// tens of milliseconds, and the server's two threads meanwhile answer pages from what they
/// have instead of queueing behind it.
enum BackgroundRead {
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                _ = qb_nice_this_thread(10)
                let value = body()
                // The read's working set (five years of rows) goes back to the system here,
                // off the server's threads, instead of staying in the heap after a burst.
                qb_release_free_memory()
                continuation.resume(returning: value)
            }
            thread.name = "store-read"
            thread.start()
        }
    }
}
