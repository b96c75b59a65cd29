import CNcursesw
import Foundation
import TimbreCore

/// The one type that talks to ncursesw. It owns the screen from `start()` to `restore()`, paints
/// lines that `Screen` already made safe and exactly wide enough, and turns keys into `InputEvent`s.
/// Used by one thread at a time: set up by `TUIApp.run`, then only the TUI thread touches it until
/// that thread ends and `run` restores it.
final class Terminal: @unchecked Sendable {
    enum InputEvent: Equatable {
        case key(Key)
        case character(Character)
        case resize
    }

    private var window: UnsafeMutablePointer<WINDOW>?
    private var useColour = false

    struct NotATerminal: UserFacingError {
        let reason: String
        var message: String { "timbre's interface needs a terminal: \(reason)" }
        var hint: String? { "run it in a terminal emulator; for scripts use `timbre playlists`, `timbre tracks` and `timbre sync`" }
        var exitStatus: ExitStatus { .usage }
    }

    /// Checks that stdin/stdout are a capable terminal, then takes over the screen. With
    /// `stderrLog`, fd 2 goes to that file until `restore()`.
    func start(environment: [String: String], stderrLog: String? = nil) throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw NotATerminal(reason: "stdin or stdout is not a terminal") }
        let term = environment["TERM"] ?? ""
        guard !term.isEmpty, term != "dumb" else { throw NotATerminal(reason: "TERM is \(term.isEmpty ? "unset" : "dumb")") }
        setlocale(LC_ALL, "")
        guard let screen = initscr() else { throw NotATerminal(reason: "ncurses could not initialise TERM=\(term)") }
        window = screen
        if let stderrLog { StderrCapture.begin(logPath: stderrLog) }
        Terminal.installCrashRestore()
        cbreak()
        noecho()
        nonl()
        keypad(screen, true)
        set_escdelay(25)
        curs_set(0)
        wtimeout(screen, 100)
        if environment["NO_COLOR"] == nil, has_colors() {
            start_color()
            use_default_colors()
            init_pair(1, Int16(COLOR_BLACK), Int16(COLOR_CYAN))  // selected
            init_pair(2, Int16(COLOR_YELLOW), -1)  // warning
            init_pair(3, Int16(COLOR_BLACK), Int16(COLOR_WHITE))  // status line
            useColour = true
        }
    }

    /// Gives the terminal back (idempotent): on quit, on Ctrl-C, on SIGTERM.
    func restore() {
        guard window != nil else { return }
        window = nil
        curs_set(1)
        endwin()
        StderrCapture.end()
    }

    var size: (rows: Int, columns: Int) {
        guard let window else { return (0, 0) }
        return (Int(tcurses_rows(window)), Int(tcurses_cols(window)))
    }

    func draw(_ lines: [[Segment]]) {
        guard let window else { return }
        werase(window)
        for (row, segments) in lines.enumerated() {
            var column: Int32 = 0
            for segment in segments {
                let attributes = attributes(for: segment.style)
                wattr_on(window, attr_t(attributes), nil)
                for (text, columns) in Self.cells(segment.text) {
                    var wide = text.unicodeScalars.map { wchar_t(bitPattern: $0.value) } + [0]
                    mvwaddwstr(window, Int32(row), column, &wide)
                    column += Int32(columns)
                }
                wattr_off(window, attr_t(attributes), nil)
            }
        }
        wnoutrefresh(window)
        doupdate()
    }

    /// `text` in runs ncurses places as `TextWidth` measures them, each with its width. ncurses
    /// counts a cluster scalar by scalar (libc's wcwidth): a ZWJ family is 8 columns to it, a
    /// VS16 emoji 1, where terminals draw 2. Such a cluster is written on its own — its first
    /// scalar alone when ncurses would take more, padded with spaces when it would take less —
    /// so every column after it lands where the terminal draws it.
    static func cells(_ text: String) -> [(String, Int)] {
        var out: [(String, Int)] = []
        var run = ""
        var runWidth = 0
        for character in text {
            let width = TextWidth.width(of: character)
            let counted = character.unicodeScalars.reduce(0) { $0 + max(0, Int(tcurses_wcwidth(wchar_t(bitPattern: $1.value)))) }
            if counted == width {
                run.append(character)
                runWidth += width
                continue
            }
            if !run.isEmpty { out.append((run, runWidth)) }
            (run, runWidth) = ("", 0)
            if counted > width, let first = character.unicodeScalars.first {
                let firstWidth = max(0, Int(tcurses_wcwidth(wchar_t(bitPattern: first.value))))
                out.append((String(first) + String(repeating: " ", count: max(0, width - firstWidth)), width))
            } else {
                out.append((String(character) + String(repeating: " ", count: width - counted), width))
            }
        }
        if !run.isEmpty { out.append((run, runWidth)) }
        return out
    }

    /// OSC 52: puts `text` on the system clipboard through the terminal emulator (xterm, kitty,
    /// foot, WezTerm, iTerm2…; tmux passes it on with `set -g set-clipboard on`). Written to the
    /// terminal directly, between two frames: it draws nothing.
    func copy(_ text: String) {
        guard window != nil else { return }
        let bytes = Self.osc52(text)
        _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }

    /// `ESC ] 52 ; c ; BASE64 BEL`: the clipboard ("c") set to `text`.
    static func osc52(_ text: String) -> [UInt8] {
        Array("\u{1B}]52;c;\(Data(text.utf8).base64EncodedString())\u{07}".utf8)
    }

    func redrawAll() {
        guard let window else { return }
        clearok(window, true)
    }

    private func attributes(for style: Segment.Style) -> Int32 {
        switch style {
        case .normal: return 0
        case .selected: return useColour ? tcurses_color_pair(1) | tcurses_attr_bold() : tcurses_attr_reverse()
        // The cursor of the pane without focus: visible, but not as the focused one.
        case .current: return tcurses_attr_reverse() | tcurses_attr_dim()
        case .header: return tcurses_attr_bold() | tcurses_attr_underline()
        case .dim: return tcurses_attr_dim()
        case .status: return useColour ? tcurses_color_pair(3) : tcurses_attr_reverse()
        case .warning: return useColour ? tcurses_color_pair(2) | tcurses_attr_bold() : tcurses_attr_bold()
        }
    }

    /// One event, or nil after the 100 ms timeout.
    func readEvent() -> InputEvent? {
        guard let window else { return nil }
        var value: wint_t = 0
        let kind = wget_wch(window, &value)
        if kind == KEY_CODE_YES {
            switch Int32(value) {
            case KEY_RESIZE: return .resize
            case KEY_UP: return .key(Key("Up")!)
            case KEY_DOWN: return .key(Key("Down")!)
            case KEY_LEFT: return .key(Key("Left")!)
            case KEY_RIGHT: return .key(Key("Right")!)
            case KEY_HOME: return .key(Key("Home")!)
            case KEY_END: return .key(Key("End")!)
            case KEY_NPAGE: return .key(Key("PageDown")!)
            case KEY_PPAGE: return .key(Key("PageUp")!)
            case KEY_BTAB: return .key(Key("BackTab")!)
            case KEY_ENTER: return .key(Key("Enter")!)
            case KEY_BACKSPACE: return .key(Key("Backspace")!)
            case KEY_DC: return .key(Key("Delete")!)
            default: return nil
            }
        }
        guard kind == OK, let scalar = Unicode.Scalar(UInt32(value)) else { return nil }
        switch scalar.value {
        case 9: return .key(Key("Tab")!)
        case 10, 13: return .key(Key("Enter")!)
        case 27: return .key(Key("Esc")!)
        case 8, 127: return .key(Key("Backspace")!)
        case 1...26: return Key("C-" + String(Character(Unicode.Scalar(scalar.value + 96)!))).map(InputEvent.key)
        case 0..<32: return nil
        default: return .character(Character(scalar))
        }
    }

    /// On a crash signal, give the terminal back before dying.
    private static func installCrashRestore() {
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            Glibc.signal(signal) { number in
                endwin()
                // The crash report belongs on the terminal, not in the log.
                StderrCapture.end()
                Glibc.signal(number, SIG_DFL)
                raise(number)
            }
        }
    }
}
