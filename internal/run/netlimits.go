package run

import (
	"github.com/shadow-dev/shadow/engine"
)

// netLimits resolves --host-port and --memory, each over the spec's
// "host_ports" and "memory", and refuses what cannot mean anything:
// --host-port with --net isolated (nothing crosses an isolated network;
// with --net host every host port is reachable already, so it is
// accepted and changes nothing).
func netLimits(o *Options, spec *engine.Spec, net Net) error {
	if len(o.HostPorts) == 0 {
		o.HostPorts = spec.HostPorts
	}
	for _, p := range o.HostPorts {
		if p < 1 || p > 65535 {
			return Usage("--host-port %d: want a TCP port (1-65535)", p)
		}
	}
	if len(o.HostPorts) > 0 && net == NetIsolated {
		return Usage("--host-port needs --net private (the default): --net isolated lets nothing cross")
	}
	if o.Memory < 0 {
		return Usage("--memory %d: want a positive size", o.Memory)
	}
	if o.Memory == 0 && spec.Memory != "" {
		n, err := engine.ParseSize(spec.Memory)
		if err != nil || n <= 0 {
			return Usage("spec memory %q: want a size like 2G", spec.Memory)
		}
		o.Memory = n
	}
	return nil
}
