// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package machine

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/p2pconf/p2pconf/harness/gpulock"
	"github.com/p2pconf/p2pconf/harness/runid"
)

// LockGPUs takes the exclusive-use lock of every GPU m selected (gpulock,
// configured by P2PCONF_LOCK_DIR, P2PCONF_LOCK_WAIT, P2PCONF_LOCK_HELD): a
// suite process takes it for its own GPUs, p2pconf run for the whole run.
// A GPU another process of the same run (package runid) holds is waited
// for; one another run holds is refused (after P2PCONF_LOCK_WAIT).
// The fake backend's GPUs belong to its state directory, not to the
// machine, so fake runs lock only when P2PCONF_LOCK_DIR asks for it; the
// lock is then nil (Release on nil is harmless).
func LockGPUs(m *Machine) (*gpulock.Lock, error) {
	if strings.HasPrefix(m.Backend.Name(), "fake") && os.Getenv(gpulock.EnvDir) == "" {
		return nil, nil
	}
	o, err := gpulock.OptionsFromEnv()
	if err != nil {
		return nil, err
	}
	// The suites of one go test ./suites/... (or ginkgo) run at once, as
	// processes of one run: each waits for the GPUs another holds, while
	// another run is refused at once.
	o.RunID, o.SameRunWait = runid.Current(), max(o.Wait, gpulock.DefaultSameRunWait)
	o.Waiting = func(uuid string, h gpulock.Holder) {
		fmt.Fprintf(os.Stderr, "p2pconf: GPU %s is held by another process of this run (%s); waiting for it, up to %s\n", uuid, h, o.SameRunWait)
	}
	var uuids []string
	for _, g := range m.GPUs() {
		uuids = append(uuids, g.Info.UUID)
	}
	l, err := gpulock.Acquire(context.Background(), uuids, o)
	if err != nil {
		return nil, fmt.Errorf("exclusive use of %s: %w", m.GPUNames(), err)
	}
	return l, nil
}

// GPUNames lists m's selected GPUs as "GPU0, GPU1".
func (m *Machine) GPUNames() string {
	var names []string
	for _, g := range m.GPUs() {
		names = append(names, g.String())
	}
	return strings.Join(names, ", ")
}
