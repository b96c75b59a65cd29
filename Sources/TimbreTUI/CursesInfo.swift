import CNcursesw

/// Facts about the linked ncursesw, for `timbre doctor`.
public enum CursesInfo {
    public static var version: String { String(cString: curses_version()) }
}
