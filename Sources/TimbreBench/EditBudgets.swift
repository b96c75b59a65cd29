import TimbreCore
import TimbreLibrary

/// Write requests per edit: timbre's plans (what it sends, write for write) against a naive
/// client's in the same run — one request per item for adds and likes, one move per entry for a
/// shuffle (timbre's moves skip the longest increasing subsequence), and rewriting the whole
/// playlist (`PUT …/items` with the first 100 URIs, then `POST`s of 100) for a positional removal,
/// which is the only other way to remove one copy of a duplicated track.
enum EditBudgets {
    static func table() throws -> String {
        var lines = ["| edit | timbre writes | budget | naive client | naive ÷ timbre |", "|---|---|---|---|---|"]
        func row(_ edit: String, _ timbre: Int, _ budget: String, _ naive: Int) {
            let ratio = timbre > 0 ? String(format: "%.1f×", Double(naive) / Double(timbre)) : "—"
            lines.append("| \(edit) | \(timbre) | \(budget) | \(naive) | \(ratio) |")
        }
        func uris(_ count: Int, distinct: Int) -> [String] { (0..<count).map { "spotify:track:t\($0 % max(1, distinct))" } }

        for n in [1, 100, 101, 1_000, 2_500] {
            let plan = try EntryEdit.insert(uris: uris(n, distinct: n), position: 0).plan(on: uris(50, distinct: 50).map { $0 + "x" })
            row("add \(n) \(n == 1 ? "item" : "items")", plan.writes.count, "ceil(n/100) = \((n + 99) / 100)", n)
        }
        for (size, copies, runs) in [(500, 1, 1), (500, 4, 2), (2_500, 9, 5), (10_000, 20, 20)] {
            // A playlist of `size` distinct tracks in which track T appears `copies + 1` times, the
            // kept copies in `runs` contiguous runs; remove the first copy.
            var list = (0..<size).map { "spotify:track:u\($0)" }
            let target = "spotify:track:T"
            list[0] = target
            var placed = 0
            for run in 0..<runs {
                let start = (run + 1) * (size / (runs + 1))
                let length = copies / runs + (run < copies % runs ? 1 : 0)
                for offset in 0..<length {
                    list[start + offset] = target
                    placed += 1
                }
            }
            let plan = try EntryEdit.remove(positions: [0]).plan(on: list)
            row(
                "remove 1 of \(placed + 1) copies (\(placed) kept in \(runs) \(runs == 1 ? "run" : "runs")), \(size) entries", plan.writes.count,
                "1 + runs = \(1 + runs)", (size - 1 + 99) / 100)
            let undo = try EntryEdit.remove(positions: [0]).inverse(before: list).plan(on: plan.result)
            row("undo of that removal", undo.writes.count, "≤ the edit's \(plan.writes.count)", (size + 99) / 100)
        }
        for n in [1, 40, 41, 500] {
            row("like \(n) \(n == 1 ? "item" : "items")", LibraryEdit(uris: uris(n, distinct: n), save: true).chunks.count, "ceil(n/40) = \((n + 39) / 40)", n)
        }
        for n in [100, 2_500, 10_000] {
            var order = Array(0..<n)
            var generator = SeededGenerator(state: UInt64(n))  // the same table on every run
            order.shuffle(using: &generator)
            let plan = try EntryEdit.permute(order: order).plan(on: uris(n, distinct: n))
            row("shuffle \(n) entries, --rewrite (every date reset)", plan.writes.count, "ceil(n/100) = \((n + 99) / 100)", n - 1)
            // The default: range moves, every added date kept; at most n − LIS (the entries outside a
            // longest increasing subsequence of the new order), fewer when runs form.
            let moves = try EntryEdit.reorder(order: order).plan(on: uris(n, distinct: n))
            row("shuffle \(n) entries by moves (dates kept)", moves.writes.count, "≤ n − LIS", n - 1)
        }
        // Dedupe of 10,000 entries, 5 % of them later copies of earlier tracks (scattered).
        var list = uris(10_000, distinct: 10_000)
        for index in stride(from: 20, to: 10_000, by: 20) { list[index] = list[index - 19] }
        var seen = Set<String>()
        let duplicates = list.indices.filter { !seen.insert(list[$0]).inserted }
        let dedupe = try EntryEdit.remove(positions: duplicates).plan(on: list)
        row("dedupe 10,000 entries, \(duplicates.count) duplicates (5 %)", dedupe.writes.count, "1 per 100 tracks + 1 per run kept", 100)
        row(
            "import 1,000 rows with URIs (0 searches)", try EntryEdit.insert(uris: uris(1_000, distinct: 1_000), position: 0).plan(on: []).writes.count,
            "≤ 10", 1_000)
        let moved = try EntryEdit.move(start: 2_000, length: 500, to: 0).plan(on: uris(2_500, distinct: 2_500))
        row("move 500 of 2,500 entries", moved.writes.count, "1", 25)
        return lines.joined(separator: "\n")
    }
}
