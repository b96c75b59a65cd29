import Foundation
import TimbreCore

/// `A`'s picker in the right pane: the playlists matching the query, the chosen one highlighted.
extension Screen {
    static func pickerHeader(_ picker: TUIState.Picker) -> String {
        if case .device(let request) = picker.purpose {
            let enter = request == nil ? "Enter moves playback there" : "Enter plays there"
            return " Devices (\(picker.matches.count) of \(picker.candidates.count)) — type to narrow, ↑↓ choose, \(enter), Esc closes"
        }
        return " Add \(picker.what) to (\(picker.matches.count) of \(picker.candidates.count)) — type to narrow, ↑↓ C-p C-n choose, Enter adds, Esc closes"
    }

    static func pickerLines(_ picker: TUIState.Picker, width: Int, height: Int) -> [Segment] {
        let range = window(cursor: picker.cursor, total: picker.matches.count, height: height)
        var out: [Segment] = range.map { row in
            let name = picker.candidates[picker.matches[row]].name
            return Segment(TextWidth.pad(" " + name, columns: width), row == picker.cursor ? .selected : .normal)
        }
        if picker.matches.isEmpty {
            let what = picker.purpose == .add ? "playlist" : "device"
            out.append(Segment(TextWidth.pad("  no \(what) matches — Backspace widens", columns: width), .dim))
        }
        while out.count < height { out.append(Segment(String(repeating: " ", count: width))) }
        return Array(out.prefix(height))
    }
}
