// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package vmm_test

import (
	"context"
	"fmt"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/p2pconf/p2pconf/harness"
)

// countFDs counts this process's open descriptors.
func countFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// importerHelper is the spec's side of an importer. It keeps the spec's
// fixture and context to report how a failed importer ended.
type importerHelper struct {
	ctx context.Context
	h   *harness.Harness
	hp  *harness.Helper
}

func startImporter(ctx context.Context, h *harness.Harness) *importerHelper {
	GinkgoHelper()
	return &importerHelper{ctx: ctx, h: h, hp: h.StartHelper(ctx, importerRole, harness.HelperOptions{Deadline: 40 * time.Second})}
}

// do sends cmd and returns the reply; a helper that fails or does not answer
// in time fails the spec, naming its last step and its error.
func (ih *importerHelper) do(cmd importCmd) importReply {
	GinkgoHelper()
	harness.ExpectNoError(ih.hp.Send(cmd), "send %q to the importer", cmd.Op)
	var rep importReply
	ih.h.RecvFromHelper(ih.ctx, ih.hp, &rep, "the importer's answer to %q", cmd.Op)
	return rep
}

// importFD sends fd with SCM_RIGHTS for the importer to import and map,
// once the importer has answered that it is ready for it.
func (ih *importerHelper) importFD(fd int, cmd importCmd) importReply {
	GinkgoHelper()
	cmd.Op = opImportFD
	if ready := ih.do(cmd); ready.Code != 0 {
		Fail(fmt.Sprintf("the importer is not ready for the fd on GPU%d: %s", cmd.Device, ready.Error))
	}
	harness.ExpectNoError(ih.hp.SendFD(fd, nil), "send fd %d with SCM_RIGHTS", fd)
	var rep importReply
	ih.h.RecvFromHelper(ih.ctx, ih.hp, &rep, "the importer's answer to %q", cmd.Op)
	return rep
}

// exit ends the importer and checks it ended well.
func (ih *importerHelper) exit(ctx context.Context, h *harness.Harness) {
	GinkgoHelper()
	harness.ExpectNoError(ih.hp.Send(importCmd{Op: opExit}), "send exit to the importer")
	harness.ExpectNoError(h.WaitHelper(ctx, ih.hp), "importer")
}
