// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/p2pconf/p2pconf/harness/gpulock"
	"github.com/p2pconf/p2pconf/harness/machine"
)

// holdGPUs locks the run's GPUs (those P2PCONF_GPUS selects) for the whole
// run and hands the lock down to every suite process through
// P2PCONF_LOCK_HELD. Each suite process locks its GPUs on its own as well;
// without this outer lock another run could take the GPUs between two
// rounds, and the next round would stop naming it. Fake runs lock only when
// P2PCONF_LOCK_DIR asks for it, as the suites do: the fake's GPUs are not
// the machine's.
func holdGPUs(stderr io.Writer) (release func(), err error) {
	m, err := machine.OpenNew()
	if err != nil {
		// No GPU to run on: every suite would fail its setup with the same
		// error, after minutes of building. Say so now, before any build.
		return nil, fmt.Errorf("no GPU to run on (nothing was built; P2PCONF_BACKEND=fake runs the suites without one): %s", firstLine(err.Error()))
	}
	defer func() { _ = m.Backend.Close() }()
	l, err := machine.LockGPUs(m)
	if err != nil {
		return nil, err
	}
	if l == nil {
		return func() {}, nil
	}
	_, held, _ := strings.Cut(l.HeldEnv(), "=")
	prev, had := os.LookupEnv(gpulock.EnvHeld)
	if err := os.Setenv(gpulock.EnvHeld, held); err != nil {
		l.Release()
		return nil, err
	}
	fmt.Fprintf(stderr, "p2pconf run: holding %s for this run (locks in %s)\n", m.GPUNames(), l.Dir())
	return func() {
		if had {
			_ = os.Setenv(gpulock.EnvHeld, prev)
		} else {
			_ = os.Unsetenv(gpulock.EnvHeld)
		}
		l.Release()
	}, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
