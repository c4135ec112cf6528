//go:build !linux

package landlock

// Landlock is Linux's: elsewhere there is no seal, and copy and in-place
// modes guard against accidents only.

// StageExitSealFailed is the stage's exit status when a required seal
// could not be applied.
const StageExitSealFailed = 125

func Status() (abi int, why string) { return 0, "Landlock is a Linux security module" }

func Supported() bool { return false }

func MaybeStage() {}

func Stage(self string, p Policy, path string, argv, env []string) (string, []string, []string, error) {
	return path, argv, env, nil
}
