package overlay

import "github.com/shadow-dev/shadow/overlay/nsinit"

// MaybeInit runs the sandbox init and exits if this process was started as
// one; otherwise it returns at once. Importing this package already
// dispatches the init (nsinit's init function, before the packages it
// never uses are initialized); main and TestMain call this to say so.
func MaybeInit() { nsinit.MaybeInit() }

// CloseInheritedFDs marks every descriptor above stderr close-on-exec, so
// none of what this process inherited reaches a command it starts; main
// calls it first (nsinit.CloseInheritedFDs).
func CloseInheritedFDs() { nsinit.CloseInheritedFDs() }

// errnoName is err's errno as its name, "" when it has none.
func errnoName(err error) string { return nsinit.ErrnoName(err) }
