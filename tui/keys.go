package tui

import "github.com/charmbracelet/bubbles/key"

// KeyMap is every key the screen answers to; the help bar is built from it.
type KeyMap struct {
	Left, Right, Up, Down key.Binding
	PageUp, PageDown      key.Binding
	Tab, ShiftTab         key.Binding
	Open, Apply, Help     key.Binding
	Back, Quit            key.Binding
	Yes, No               key.Binding
}

// DefaultKeyMap is the key map of DESIGN.md and issue 6.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Left:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "prev")),
		Right:    key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "next")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", " ", "f"), key.WithHelp("pgdn", "page down")),
		Tab:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "pane")),
		ShiftTab: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "prev pane")),
		Open:     key.NewBinding(key.WithKeys("enter", "o"), key.WithHelp("enter/o", "output")),
		Apply:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "apply")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Yes:      key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes")),
		No:       key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n", "no")),
	}
}

// ShortHelp is the one-line help bar.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Left, k.Right, k.Tab, k.Open, k.Apply, k.Help, k.Quit}
}

// FullHelp is the help shown with ?.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Left, k.Right, k.Up, k.Down},
		{k.PageUp, k.PageDown, k.Tab, k.ShiftTab},
		{k.Open, k.Back, k.Apply},
		{k.Help, k.Quit},
	}
}
