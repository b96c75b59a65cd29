/// Word lists for readable names, and the hostile strings real libraries contain.
enum Names {
    static let adjectives = [
        "Golden", "Midnight", "Electric", "Quiet", "Velvet", "Broken", "Neon", "Silver", "Wild", "Lonely",
        "Crimson", "Endless", "Hidden", "Paper", "Summer", "Winter", "Distant", "Northern", "Burning", "Gentle",
    ]
    static let nouns = [
        "River", "Heart", "Highway", "Garden", "Signal", "Mirror", "Harbor", "Echo", "Skyline", "Letter",
        "Window", "Ocean", "Machine", "Lantern", "Canyon", "Satellite", "Promise", "Shadow", "Morning", "Engine",
    ]
    static let pluralNouns = [
        "Lights", "Dreams", "Waves", "Strangers", "Hours", "Rivers", "Stars", "Birds", "Cities", "Ghosts",
        "Mountains", "Flowers", "Secrets", "Wolves", "Clouds",
    ]
    static let verbs = ["Chasing", "Finding", "Leaving", "Crossing", "Holding", "Dancing", "Building", "Waiting for"]
    static let versions = ["Live", "Remastered 2011", "Acoustic", "Radio Edit", "Demo", "feat. Someone"]
    static let firstNames = [
        "Ava", "Noah", "Mia", "Liam", "Zoe", "Omar", "Lena", "Kenji", "Sofia", "Ravi", "Elin", "Mateo", "Yara", "Finn",
    ]
    static let lastNames = [
        "Park", "Lindqvist", "Okafor", "Moreau", "Tanaka", "Rossi", "Haddad", "Novak", "Silva", "Berg", "Cohen", "Walsh",
    ]

    /// Readable playlist names: what a new user sees first in `timbre demo`.
    static let playlistNames = [
        "Morning Coffee", "Road Trip 2024", "Focus Flow", "Sunday Chill", "Workout Mix", "Late Night Jazz",
        "Indie Discoveries", "Running 160 BPM", "Dinner Party", "Throwbacks", "Rainy Day", "Deep Work",
        "Summer Hits", "Acoustic Evenings", "Party Starters", "Sleep Sounds", "Cooking Jams", "90s Kids",
        "Study Beats", "Weekend Vibes",
    ]

    static let hugeName = String(repeating: "Very long title ", count: 625)

    /// Track titles for pool indices 0..<count, so every size carries them.
    static let quirkyTitles = [
        "Café del Mar 🌅🎶",
        "夜に駆ける",
        "东风破",
        "안녕 (Hello)",
        "حبيبي يا نور العين",
        "שיר לשלום",
        "Cafe\u{301} Noir",
        "Z\u{336}a\u{337}l\u{338}g\u{335}o\u{334} Song",
        "She said \"hello\" — it's 'fine'",
        "Line one\nLine two",
        "Tab\tSeparated\tTitle",
        "'); DROP TABLE playlists;--",
        "Robert'); DROP TABLE tracks;-- ",
        "\u{1B}]0;pwned\u{07}Innocent Title",
        "\u{1B}[31mRed Alert\u{1B}[0m",
        "\u{9B}31mEight-bit CSI",
        "Back\\slash / 100% <b>bold</b> & more",
        "👨‍👩‍👧‍👦 Family Tree",
        "🇸🇪 Flag Song",
        "Carriage\r\nReturn",
        hugeName,
    ]

    static let quirkyArtists = [
        "Sigur Rós", "坂本龍一", "فيروز", "עומר אדם", "Beyonce\u{301}", "Mötley Crüe", "AC/DC", "Guns N' Roses",
        "\"Weird Al\" Yankovic", "BTS (방탄소년단)",
    ]

    static let quirkyLocals = [
        Pool.LocalFile(artist: "Local Artist", album: "Home Tapes", title: "My Song", seconds: 123),
        Pool.LocalFile(artist: "Björk", album: "Demos & Rarities", title: "Jóga (demo #2)", seconds: 305),
        Pool.LocalFile(artist: "Unknown Artist", album: "", title: "track01", seconds: 42),
        Pool.LocalFile(artist: "", album: "", title: "voice memo: 12:30", seconds: 7),
    ]

    /// Playlist names placed among ordinary ones.
    static let quirkyPlaylists = [
        "\u{1B}]0;pwned\u{07}Totally Normal Playlist",
        hugeName,
        "Ünïcödé 🎧 Mix",
        "日本のシティポップ",
        "موسيقى عربية",
        "Cafe\u{301} & \"Quotes\" 'n' Stuff",
        "'); DROP TABLE playlists;--",
        "Line\nBreak\tand Tab",
        "\u{1B}[31mRED\u{1B}[0m \u{9B}2J",
    ]
}
