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

/// Everything a controller needs; one per process.
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
    /// The player's home and stats as last read: each read serves every page for 2 s (a
    /// flood of requests reads five years of history once per 2 s, not once each). Plays on
    /// the box show within 2 s; this process's own changes at once (`ForgetRecentReads`).
    let recentHome: RecentValue<Result<PlayerHome, any Error>>
    let recentStats: RecentValue<Result<RenderedStats, any Error>>
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

    /// The family's calendar: the week starts on the stored first weekday, as on the box.
    func familyCalendar() throws -> Calendar { try settings.settings().calendar(from: calendar) }

    /// The player's home, read at most once per 2 s.
    func playerHome() async throws -> PlayerHome {
        try await recentHome.get { [self] in
            await BackgroundRead.run { Result { try PlayerHome.load(from: database, calendar: calendar, clock: clockStyle, now: Date()) } }
        }.get()
    }

    /// The stats and their page, read and rendered at most once per 2 s: the page is the
    /// same for every visitor, so a flood of requests costs one render per read.
    func stats() async throws -> RenderedStats {
        try await recentStats.get { [self] in
            await BackgroundRead.run {
                Result {
                    let report = try StatsReport.load(from: database, now: Date(), calendar: calendar)
                    let letters = StatsPage.weekdayLetters(try database.settings().calendar(from: calendar))
                    return RenderedStats(report: report, page: try resources.page("stats", StatsPage(report, weekdayLetters: letters)))
                }
            }
        }.get()
    }

    /// The clocks a PIN reset's 24 hours are judged on (PAR-2).
    func pinResetClock() -> PINResetClock {
        let clock = presence.clock
        return PINResetClock(monotonicNanos: clock.monotonicNanos(), bootID: clock.bootID, wall: clock.wallNow(), wallTrusted: clock.isWallClockTrusted())
    }

    /// PAR-2: a waiting PIN reset whose 24 hours are over replaces the PIN now, and every
    /// session of the old PIN ends. The last reset, as it is after that (nil: none).
    @discardableResult
    func settlePINReset() throws -> PINReset? {
        let last = try pins.pinReset()
        guard let reset = last, reset.state == .waiting else { return last }
        let now = try pins.settlePINReset(clock: pinResetClock())
        if now?.state == .applied {
            parents.closeAll()
            logger.notice("parent PIN replaced: a reset's 24 hours are over", metadata: ["from": "\(reset.from)"])
        }
        return now
    }

    /// This process changed the store: the next pages read it anew.
    func forgetRecentReads() {
        recentHome.forget()
        recentStats.forget()
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
        routines = database
        backups = database
        settings = database
        pins = database
        records = database
        plays = database
        pinChecks = PINChecks(database: database, clock: clock)
        let recentHome = RecentValue<Result<PlayerHome, any Error>>(freshNanos: 2_000_000_000)
        let recentStats = RecentValue<Result<RenderedStats, any Error>>(freshNanos: 2_000_000_000)
        self.recentHome = recentHome
        self.recentStats = recentStats
        // #33: a quest that ends on the box (its summary, or the quest list again) was written
        // before the box showed it: the player's pages read the store anew from then on.
        let kioskEvents = BoxEventRelay(socketPath: box.socketPath, channel: .kiosk) { m in
            guard m.event == "screen", let kind = m.screen?.kind, kind == "summary" || kind == "idle" else { return }
            recentHome.forget()
            recentStats.forget()
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
func buildRouter(_ services: WebServices, rooms: RouteRooms) -> Router<WebRequestContext> {
    // HEAD answers as GET without a body, through the same room (#47).
    let router = Router(context: WebRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: SecurityHeadersMiddleware())
    router.add(middleware: ErrorPageMiddleware(logger: services.logger))
    router.add(middleware: HostCheckMiddleware(names: services.hostNames))
    router.add(middleware: RoomGate(services: services, rooms: rooms))
    let open = RoomRoutes(.open, in: rooms, on: router.group())
    let player = RoomRoutes(.player, in: rooms, on: router.group())
    let api = open.group("api/v1")
    let playerAPI = player.group("api/v1")
    PlayerController(services: services).addRoutes(to: player)
    MeController(services: services).addRoutes(to: player)
    FirstRunController(services: services).addRoutes(to: open)
    KioskController(services: services).addRoutes(to: open)
    PhonePairingController(services: services).addRoutes(to: open)
    SetupController(services: services).addRoutes(to: open)
    APIController(services: services).addRoutes(to: api, player: playerAPI)
    let stats = StatsController(services: services)
    stats.addRoutes(to: player)
    stats.addAPIRoutes(to: playerAPI)
    let quests = QuestsController(services: services)
    quests.addRoutes(to: player)
    quests.addAPIRoutes(to: playerAPI)
    let parent = ParentController(services: services)
    parent.addRoutes(to: open)
    parent.addAPIRoutes(to: api)
    // The parent's area past the PIN: pages and their API.
    let parentRoom = RoomRoutes(.parent, in: rooms, on: router.group())
    let signedIn = parentRoom.group("parent").add(middleware: ForgetRecentReads(services: services))
    let signedInAPI = parentRoom.group("api/v1/parent").add(middleware: ForgetRecentReads(services: services))
    parent.addSignedInRoutes(to: signedIn)
    let routines = RoutinesController(services: services)
    routines.addRoutes(to: signedIn)
    routines.addAPIRoutes(to: signedInAPI)
    let settings = SettingsController(services: services)
    settings.addRoutes(to: signedIn)
    settings.addAPIRoutes(to: signedInAPI)
    let backups = BackupsController(services: services)
    backups.addRoutes(to: signedIn)
    backups.addAPIRoutes(to: signedInAPI)
    let wiring = WiringController(services: services)
    wiring.addRoutes(to: signedIn)
    wiring.addAPIRoutes(to: signedInAPI)
    ScreensController(services: services).addRoutes(to: signedIn)
    KiosksController(services: services).addRoutes(to: signedIn)
    let health = HealthController(services: services)
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
