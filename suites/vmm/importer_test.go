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
// context to bound every call.
type importerHelper struct {
	ctx context.Context
	hp  *harness.RoleClient[importCmd, importReply]
}

func startImporter(ctx context.Context, h *harness.Harness) *importerHelper {
	GinkgoHelper()
	return &importerHelper{ctx: ctx, hp: importerRole.Start(ctx, h, harness.HelperOptions{Deadline: 40 * time.Second})}
}

// do sends cmd and returns the reply; a helper that fails or does not answer
// in time fails the spec, naming its last step and its error.
func (ih *importerHelper) do(cmd importCmd) importReply {
	GinkgoHelper()
	rep, err := ih.hp.Call(ih.ctx, cmd)
	harness.ExpectNoError(err, "the importer's answer to %q", cmd.Op)
	return rep
}

// importFD sends fd with SCM_RIGHTS for the importer to import and map; the
// importer takes it once it has counted its own descriptors.
func (ih *importerHelper) importFD(fd int, cmd importCmd) importReply {
	GinkgoHelper()
	cmd.Op = opImportFD
	rep, taken, err := ih.hp.CallFD(ih.ctx, cmd, fd)
	harness.ExpectNoError(err, "the importer's answer to %q with fd %d sent with SCM_RIGHTS", cmd.Op, fd)
	if !taken {
		Fail(fmt.Sprintf("the importer is not ready for the fd on GPU%d: %s", cmd.Device, rep.Error))
	}
	return rep
}

// exit ends the importer and checks it ended well.
func (ih *importerHelper) exit(ctx context.Context) {
	GinkgoHelper()
	harness.ExpectNoError(ih.hp.End(ctx), "importer")
}
