#ifndef TIMBRE_CNCURSESW_SHIM_H
#define TIMBRE_CNCURSESW_SHIM_H
// SwiftPM drops pkg-config's -D_XOPEN_SOURCE=600, which hides the wide-character API.
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <ncursesw/curses.h>
static inline int tcurses_attr_bold(void) { return (int)A_BOLD; }
static inline int tcurses_attr_reverse(void) { return (int)A_REVERSE; }
static inline int tcurses_attr_dim(void) { return (int)A_DIM; }
static inline int tcurses_attr_underline(void) { return (int)A_UNDERLINE; }
static inline int tcurses_color_pair(int n) { return (int)COLOR_PAIR(n); }
static inline int tcurses_rows(WINDOW *w) { return getmaxy(w); }
static inline int tcurses_cols(WINDOW *w) { return getmaxx(w); }
static inline int tcurses_key_resize(void) { return KEY_RESIZE; }
// The columns ncurses gives one character (libc's wcwidth, hidden without _XOPEN_SOURCE).
extern int wcwidth(wchar_t c);
static inline int tcurses_wcwidth(wchar_t c) { return wcwidth(c); }
#endif
