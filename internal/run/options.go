package run

import (
	"errors"
	"github.com/shadow-dev/shadow/engine"
	"io"
	"time"
)

// Options are what a front end asks of a run, typed and validated: the
// CLI fills them from its flags, the MCP server from a tool call's
// arguments. A zero field means "not given": the spec's value, else the
// default, applies.
type Options struct {
	// Cwd is the caller's working directory (absolute): the command runs
	// in its counterpart inside the workspace.
	Cwd string
	// Dir is the workspace root (-C); "" means the git top-level holding
	// Cwd, else Cwd.
	Dir string
	// Command overrides the spec's "command".
	Command []string

	Jobs    int           // hypotheses at once; 0 = the spec's, else the number of CPUs
	Timeout time.Duration // per hypothesis; 0 = the spec's, else 10m
	Mode    Mode          // "" = auto
	// CopySkip are --copy-skip globs: what copy mode leaves out of each
	// hypothesis's copy of the workspace.
	CopySkip []string
	Net      Net // "" = the spec's, else host
	Tmp      Tmp // "" = the spec's, else private in overlay mode (shared in the others)
	// Writable are --writable paths (absolute, or relative to Cwd), over
	// the spec's "writable": overlay mode overlays each per hypothesis.
	Writable []string
	// HostPorts are --host-port ports (over the spec's "host_ports"): host
	// localhost TCP ports a hypothesis reaches at its own 127.0.0.1 under
	// --net private. Memory is --memory (over the spec's "memory"): each
	// hypothesis's memory cap in bytes, 0 for none (netlimits.go).
	HostPorts []int
	Memory    int64
	// Upper is where overlay mode's upper dirs live (--upper): "" or disk
	// under the state dir, ram a tmpfs per hypothesis capped at UpperSize
	// bytes (--upper-size; 0 = overlay.DefaultRAMSize, a quarter of RAM).
	Upper     Upper
	UpperSize int64

	// RequireSeal (--require-seal): copy and in-place modes refuse to run
	// (exit 3) where Landlock cannot seal the command.
	RequireSeal bool

	Apply    bool // write the winner into the checkout
	Baseline bool // add a hypothesis "baseline" with no edits unless the spec has one
	Keep     bool // keep what each command wrote in the run's record
	Freeze   bool // run on a copy of the source files taken at the start
	NoRecord bool // do not record the run in the state directory
	// NoWarm neither stacks the workspace's warm build-output layer nor
	// feeds it from the baseline (--no-warm; internal/sandbox/warm).
	NoWarm bool

	// MaxOutput caps each hypothesis's stored output log (--max-output;
	// 0 = engine.DefaultMaxOutput). MaxEditSize bounds one edit's content
	// (--max-edit-size; 0 = engine.DefaultMaxEditSize).
	MaxOutput   int64
	MaxEditSize int64

	// Confirm reruns the baseline and the leading candidate this many more
	// times before naming a winner (--confirm N); 0 = the spec's.
	Confirm int
	// AllowTestEdits lets a candidate that changes the tests or runs fewer
	// of them win (--allow-test-edits); the spec's "allow_test_edits" too.
	AllowTestEdits bool
	// AllowSuspicious lets a candidate whose code the scan flagged win
	// (--allow-suspicious); the spec's "allow_suspicious" too.
	AllowSuspicious bool
	// NoCross turns the cross phase off (--no-cross; the spec's
	// "no_cross" too): candidates' proposed tests do not run on the others.
	NoCross bool
	// TestsFrom is --tests-from DIR|PATCH (relative to Cwd), over the
	// spec's "tests_from": tests written before the candidates were seen,
	// the judge's on every hypothesis (testsfrom.go).
	TestsFrom string
	// WithTests: --apply writes the winner's proposed tests (its judge
	// part) too, not only its code (--with-tests).
	WithTests bool
	// Shard runs one slice of the hypotheses, "K/N" (--shard; the spec's
	// "shard"); "/N" or ShardIndexEnv takes K from the environment
	// (--shard-index-env VAR, else the schedulers' usual variables).
	Shard         string
	ShardIndexEnv string
	// Remote names the nodes to run on (--remote, docs/remote.md), over
	// the spec's "remote"; RemoteDir is where their mirrors live when not
	// at the workspace's own path (--remote-dir).
	Remote    []string
	RemoteDir string

	// Notices receives one-line notices for people (an in-place fallback,
	// a recovered checkout, a wait for the workspace lock); nil discards
	// them. Nothing else is ever printed.
	Notices io.Writer
	// Version is shadow's version: the probe's cached verdict is only
	// trusted from the same binary version.
	Version string
}

func (o *Options) notices() io.Writer {
	if o.Notices == nil {
		return io.Discard
	}
	return o.Notices
}

// Mode is the sandbox mode asked for (docs/cli.md --mode).
type Mode string

const (
	ModeAuto    Mode = "auto"
	ModeOverlay      = Mode(engine.ModeOverlay)
	ModeCopy         = Mode(engine.ModeCopy)
	ModeInplace      = Mode(engine.ModeInplace)
)

// ParseMode validates a --mode value; "" is auto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return ModeAuto, nil
	case ModeAuto, ModeOverlay, ModeCopy, ModeInplace:
		return m, nil
	}
	return "", errors.New("want auto, overlay, copy or inplace")
}

// Net is the command's network (--net).
type Net string

const (
	NetHost     Net = "host"
	NetIsolated Net = "isolated"
	// NetPrivate is overlay mode's default: a network namespace per
	// hypothesis with its own loopback, HTTP(S) out through shadow's
	// proxy, --host-port ports forwarded.
	NetPrivate Net = "private"
)

// ParseNet validates a --net value; "" is "not given".
func ParseNet(s string) (Net, error) {
	switch n := Net(s); n {
	case "", NetHost, NetIsolated, NetPrivate:
		return n, nil
	}
	return "", errors.New("want private, isolated or host")
}

// Tmp is the command's /tmp (--tmp).
type Tmp string

const (
	TmpShared  Tmp = "shared"
	TmpPrivate Tmp = "private"
)

// ParseTmp validates a --tmp value; "" is "not given".
func ParseTmp(s string) (Tmp, error) {
	switch t := Tmp(s); t {
	case "", TmpShared, TmpPrivate:
		return t, nil
	}
	return "", errors.New("want shared or private")
}

// Upper is where upper dirs live (--upper).
type Upper string

const (
	UpperDisk Upper = "disk"
	UpperRAM  Upper = "ram"
)

// ParseUpper validates an --upper value; "" is disk.
func ParseUpper(s string) (Upper, error) {
	switch u := Upper(s); u {
	case "":
		return UpperDisk, nil
	case UpperDisk, UpperRAM:
		return u, nil
	}
	return "", errors.New("want disk or ram")
}

func (u *Upper) String() string { return string(*u) }
func (u *Upper) Type() string   { return "WHERE" }
func (u *Upper) Set(s string) (err error) {
	*u, err = ParseUpper(s)
	return err
}

// ParseTimeout validates a --timeout value or a spec's "timeout": a
// positive duration.
func ParseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, errors.New("want a positive duration such as 90s or 5m")
	}
	return d, nil
}

// The flag.Value / pflag.Value methods, so that a flag set validates these
// values with the same Parse as the spec and the MCP arguments.

func (m *Mode) String() string { return string(*m) }
func (m *Mode) Type() string   { return "MODE" }
func (m *Mode) Set(s string) (err error) {
	*m, err = ParseMode(s)
	return err
}

func (n *Net) String() string { return string(*n) }
func (n *Net) Type() string   { return "NET" }
func (n *Net) Set(s string) (err error) {
	*n, err = ParseNet(s)
	return err
}

func (t *Tmp) String() string { return string(*t) }
func (t *Tmp) Type() string   { return "TMP" }
func (t *Tmp) Set(s string) (err error) {
	*t, err = ParseTmp(s)
	return err
}

// TimeoutValue is a --timeout flag's value.
type TimeoutValue struct{ D *time.Duration }

func (v TimeoutValue) String() string {
	if v.D == nil || *v.D == 0 {
		return ""
	}
	return v.D.String()
}
func (v TimeoutValue) Type() string { return "DUR" }
func (v TimeoutValue) Set(s string) (err error) {
	*v.D, err = ParseTimeout(s)
	return err
}

// SizeValue is a --max-output / --max-edit-size flag's value (engine.ParseSize).
type SizeValue struct{ N *int64 }

func (v SizeValue) String() string {
	if v.N == nil || *v.N == 0 {
		return ""
	}
	return engine.FormatSize(*v.N)
}
func (v SizeValue) Type() string { return "SIZE" }
func (v SizeValue) Set(s string) (err error) {
	*v.N, err = engine.ParseSize(s)
	return err
}
