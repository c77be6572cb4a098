// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import (
	"strings"
	"testing"
)

func TestPlatformInEnvironmentAndTopo(t *testing.T) {
	sys := System{Backend: "cuda", Kernel: "6.8.0", IOMMU: "off", Platform: &Platform{
		GPUs: []PlatformGPU{{GPU: 0, Virtualization: "PASSTHROUGH", Persistence: "enabled", MIG: "disabled",
			PCIe: "Gen5 x16 of max Gen5 x16", PCIeWhen: "idle, before the specs", NVLinks: "18 of 18 active: 18 × NVLink 4.0, 26562 MB/s each",
			Fabric: "state COMPLETED, status SUCCESS, clique 0, health mask 0x0"}},
		Paths: []PlatformPath{{Src: 0, Dst: 1, ACS: "0000:00:01.0 SrcValid+ ReqRedir+", Redirects: []string{"0000:00:01.0"}}},
	}}
	md := Markdown(Document{System: sys})
	for _, want := range []string{"| GPU0 platform | virtualization PASSTHROUGH · persistence enabled · MIG disabled · PCIe Gen5 x16 of max Gen5 x16 (idle, before the specs) · NVLink 18 of 18 active",
		"| ACS GPU0–GPU1 | redirects peer traffic at 0000:00:01.0: 0000:00:01.0 SrcValid+ ReqRedir+ |"} {
		if !strings.Contains(md, want) {
			t.Errorf("matrix.md lacks %q:\n%s", want, md)
		}
	}
	txt := PlatformText(sys)
	if !strings.Contains(txt, "kernel 6.8.0 · IOMMU off") || !strings.Contains(txt, "ACS GPU0–GPU1: redirects") {
		t.Errorf("topo text:\n%s", txt)
	}
	if txt := PlatformText(System{}); !strings.Contains(txt, "no platform recorded") {
		t.Errorf("without NVML:\n%s", txt)
	}
	merged := System{}
	mergeSystem(&merged, sys)
	if merged.Platform != sys.Platform {
		t.Error("merging lost the platform")
	}
}
