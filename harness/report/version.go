// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package report

import "runtime/debug"

// Version and Commit identify the build. dist/build.sh stamps them into the
// p2pconf binary and every suite binary:
//
//	-ldflags "-X github.com/p2pconf/p2pconf/harness/report.Version=v0.1.0
//	          -X github.com/p2pconf/p2pconf/harness/report.Commit=<sha>"
var (
	Version = ""
	Commit  = ""
)

// ToolVersion is the version and commit of this build: the stamped values,
// else what the Go build info knows (the module version and vcs.revision),
// else "devel" and "".
func ToolVersion() (version, commit string) {
	version, commit = Version, Commit
	if info, ok := debug.ReadBuildInfo(); ok {
		if version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			version = info.Main.Version
		}
		for _, s := range info.Settings {
			if commit == "" && s.Key == "vcs.revision" {
				commit = s.Value
			}
		}
	}
	if version == "" {
		version = "devel"
	}
	return version, commit
}
