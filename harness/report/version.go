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
// else what the Go build info knows (the module version; vcs.revision and
// vcs.modified, which go build records in a checkout: the version is then
// "devel-<commit>", with "-dirty" for uncommitted changes), else "devel"
// and "".
func ToolVersion() (version, commit string) {
	version, commit = Version, Commit
	if info, ok := debug.ReadBuildInfo(); ok {
		if version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			version = info.Main.Version
		}
		modified := false
		for _, s := range info.Settings {
			switch {
			case commit == "" && s.Key == "vcs.revision":
				commit = s.Value
			case s.Key == "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if version == "" && commit != "" && commit == vcsRevision(info) {
			version = "devel-" + commit[:min(12, len(commit))]
			if modified {
				version += "-dirty"
			}
		}
	}
	if version == "" {
		version = "devel"
	}
	return version, commit
}

// vcsRevision is the build's vcs.revision, "" without one.
func vcsRevision(info *debug.BuildInfo) string {
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			return s.Value
		}
	}
	return ""
}
