package tui

import "github.com/charmbracelet/bubbles/key"

// KeyMap is every key the screen answers to; the help bar is built from it.
// The scrolling keys are less's and lazygit's.
type KeyMap struct {
	Left, Right, Up, Down key.Binding
	PageUp, PageDown      key.Binding
	Top, Bottom           key.Binding
	Search, Next, Prev    key.Binding
	Tab, ShiftTab         key.Binding
	Open, Apply, Patch    key.Binding
	Mouse, Help           key.Binding
	Back, Quit            key.Binding
	Yes, No               key.Binding
}

// DefaultKeyMap is the key map of docs/cli.md ("The TUI's keys") and issues 6 and 16.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Left:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/→", "pick")),
		Right:    key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "next")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↑/↓", "scroll")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "b", "ctrl+u"), key.WithHelp("pgup/b", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", " ", "f", "ctrl+d"), key.WithHelp("pgdn/f", "page down")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g/home", "top")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G/end", "bottom")),
		Search:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		Next:     key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		Prev:     key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match")),
		Tab:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "pane")),
		ShiftTab: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "prev pane")),
		Open:     key.NewBinding(key.WithKeys("enter", "o"), key.WithHelp("enter", "output")),
		Apply:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "apply")),
		Patch:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "save patch file")),
		Mouse:    key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "mouse capture")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Yes:      key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes")),
		No:       key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n", "no")),
	}
}

// ShortHelp is the one-line help bar.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Left, k.Down, k.Tab, k.Open, k.Apply, k.Help, k.Quit, k.Patch}
}

// FullHelp is the help shown with ?.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Left, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Search, k.Next, k.Prev, k.Tab, k.ShiftTab, k.Open},
		{k.Back, k.Apply, k.Patch, k.Mouse, k.Help, k.Quit},
	}
}
