/// `schedule`: how many durable schedules per second one pipelining client gets.
struct ScheduleCommand {
    let load: ScheduleLoad
    let when: String
    let prefix: String

    init(_ options: Options) throws(UsageError) {
        try options.check(allowed: ["--count", "--window", "--when", "--prefix"])
        load = try ScheduleLoad(options)
        when = try options.string("--when")
        prefix = try options.string("--prefix", default: "bench")
    }

    func run() throws {
        let pipeline = try SchedulePipeline()
        let start = Clock.monotonic()
        let count = load.count
        try pipeline.run(load) { [when, prefix] index in
            (when: when, title: "\(prefix)-\(index)", body: "")
        }
        let seconds = Clock.monotonic() - start
        print("scheduled \(count) in \(fixed(seconds, 3)) s: \(fixed(Double(count) / seconds, 0))/s")
    }
}
