// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import (
	"fmt"
	"strings"

	"github.com/p2pconf/p2pconf/harness/backend"
	"github.com/p2pconf/p2pconf/harness/claims"
)

// capabilityTable is the C table of every CUatomicOperation with the masks
// its required types need (claims.RequiredAtomicTypes and CapsCover): an
// operation is fully native when mask covers each of them.
func capabilityTable() string {
	var b strings.Builder
	b.WriteString("enum { NOPS = 13, MAXTYPES = 4 };\nstatic const struct { const char *name; unsigned need[MAXTYPES]; } OPS[NOPS] = {\n")
	const all = backend.AtomicCaps(0x7f)
	for _, op := range backend.AllAtomicOperations() {
		var needs []string
		for _, t := range claims.RequiredAtomicTypes(op) {
			var m backend.AtomicCaps
			for bit := backend.AtomicCaps(1); bit < 0x80; bit <<= 1 {
				if !claims.CapsCover(op, all&^bit, t) {
					m |= bit
				}
			}
			needs = append(needs, fmt.Sprintf("0x%x", uint32(m)))
		}
		fmt.Fprintf(&b, "\t{%s, {%s}},\n", cString(strings.TrimPrefix(op.String(), "CU_ATOMIC_OPERATION_")), strings.Join(needs, ", "))
	}
	b.WriteString("};\n")
	return b.String()
}

const capabilityHelpers = `
/* mask_text is CUatomicOperationCapability bits by their cuda.h names. */
static const char *mask_text(unsigned m, char *buf, size_t n) {
	static const char *names[] = {"SIGNED", "UNSIGNED", "REDUCTION", "SCALAR_32", "SCALAR_64", "SCALAR_128", "VECTOR_32x4"};
	buf[0] = 0;
	for (int i = 0; i < 7; i++)
		if (m & (1u << i)) snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? "|" : "", names[i]);
	if (m & ~0x7fu) snprintf(buf + strlen(buf), n - strlen(buf), "%s0x%x", buf[0] ? "|" : "", m & ~0x7fu);
	if (buf[0] == 0) snprintf(buf, n, "0");
	return buf;
}

/* covers is DecodeAtomicCaps: the types and forms a mask covers. */
static const char *covers(int op, unsigned m, char *buf, size_t n) {
	buf[0] = 0;
	static const int bits[3] = {32, 64, 128};
	for (int i = 0; i < 3; i++) {
		if (!(m & (8u << i))) continue;
		if (op >= 10) snprintf(buf + strlen(buf), n - strlen(buf), "%sf%d", buf[0] ? " " : "", bits[i]);
		else if (!(m & 3u)) snprintf(buf + strlen(buf), n - strlen(buf), "%sb%d", buf[0] ? " " : "", bits[i]);
		else {
			if (m & 1u) snprintf(buf + strlen(buf), n - strlen(buf), "%ss%d", buf[0] ? " " : "", bits[i]);
			if (m & 2u) snprintf(buf + strlen(buf), n - strlen(buf), "%su%d", buf[0] ? " " : "", bits[i]);
		}
	}
	if (m & 0x40u) snprintf(buf + strlen(buf), n - strlen(buf), "%s+vector32x4", buf[0] ? " " : "");
	if (m & 0x4u) snprintf(buf + strlen(buf), n - strlen(buf), "%s+reduction", buf[0] ? " " : "");
	if (buf[0] == 0) snprintf(buf, n, "none");
	return buf;
}

/* coverage is claims.Coverage: 2 every required type, 1 some bits, 0 none. */
static int coverage(int op, unsigned m) {
	int all = 1;
	for (int t = 0; t < MAXTYPES && OPS[op].need[t] != 0; t++) all &= (m & OPS[op].need[t]) == OPS[op].need[t];
	return all ? 2 : m != 0 ? 1 : 0;
}
`

const capabilityReport = `rt_need(E_cuDeviceGetP2PAtomicCapabilities); /* RequireEntryPoint: without it the spec skips */
step("reading the atomic P2P attributes and capability masks of %s", TARGET);
int native = -1, partial = -1;
char what[128];
use(A);
snprintf(what, sizeof what, "cuDeviceGetP2PAttribute(NATIVE_ATOMIC_SUPPORTED, %d, %d)", A, B);
if (!must(cuDeviceGetP2PAttribute(&native, 3, A, B), what)) return;
if (rt_driver_version >= 13000) {
	snprintf(what, sizeof what, "cuDeviceGetP2PAttribute(ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED, %d, %d)", A, B);
	if (!must(cuDeviceGetP2PAttribute(&partial, 5, A, B), what)) return;
}
int ops[NOPS];
unsigned caps[NOPS];
for (int i = 0; i < NOPS; i++) ops[i] = i, caps[i] = 0;
snprintf(what, sizeof what, "cuDeviceGetP2PAtomicCapabilities(every operation, %d, %d)", A, B);
if (!must(cuDeviceGetP2PAtomicCapabilities(caps, ops, NOPS, A, B), what)) return;

printf("  CUDA claims for %s, side by side:\n", TARGET);
printf("    cuDeviceGetP2PAttribute NATIVE_ATOMIC_SUPPORTED              = %d\n", native);
if (partial >= 0) printf("    cuDeviceGetP2PAttribute ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED = %d\n", partial);
else printf("    cuDeviceGetP2PAttribute ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED   (needs CUDA 13.0)\n");
printf("    %-22s %-40s %-28s %s\n", "operation", "cuDeviceGetP2PAtomicCapabilities mask", "covers", "coverage");
static const char *cov_names[3] = {"none", "partly", "full"};
char full[1024] = "", some[2048] = "", none[2048] = "", summary[4096] = "", mbuf[160], cbuf[160];
int nfull = 0, nany = 0;
for (int i = 0; i < NOPS; i++) {
	int c = coverage(i, caps[i]);
	mask_text(caps[i], mbuf, sizeof mbuf);
	covers(i, caps[i], cbuf, sizeof cbuf);
	printf("    %-22s %-40s %-28s %s\n", OPS[i].name, mbuf, cbuf, cov_names[c]);
	snprintf(summary + strlen(summary), sizeof summary - strlen(summary), "%s%s=%s", summary[0] ? ", " : "", OPS[i].name, mbuf);
	if (c == 2) {
		nfull++;
		snprintf(full + strlen(full), sizeof full - strlen(full), "%s%s", full[0] ? " " : "", OPS[i].name);
	} else if (c == 1) {
		snprintf(some + strlen(some), sizeof some - strlen(some), "%s%s=%s (covers %s)", some[0] ? ", " : "", OPS[i].name, mbuf, cbuf);
	} else {
		snprintf(none + strlen(none), sizeof none - strlen(none), "%s%s=%s", none[0] ? ", " : "", OPS[i].name, mbuf);
	}
	if (c > 0) nany++;
}
printf("    NVML P2P ATOMICS status: not compared here (this file loads only the driver; the suite's report has it)\n");

step("comparing NATIVE_ATOMIC_SUPPORTED, ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED and the per-operation masks");
int all_full = nfull == NOPS, partly = nany > 0 && !all_full;
if (native == 1 && partial == 1)
	violation("%s: CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED=1 (all atomics native) and CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED=1 (only some) contradict each other", TARGET);
if (native == 1 && !all_full)
	violation("%s: CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED=1 (every atomic native) but cuDeviceGetP2PAtomicCapabilities does not cover every operation with all its types: %s%s%s",
		TARGET, some, some[0] && none[0] ? ", " : "", none);
if (native != 1 && all_full)
	violation("%s: CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED=%d but cuDeviceGetP2PAtomicCapabilities covers every operation with all its types (%s)", TARGET, native, summary);
if (partial == 1 && !partly)
	violation("%s: CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED=1 (only some atomics native) but cuDeviceGetP2PAtomicCapabilities covers %s (%s)",
		TARGET, all_full ? "every operation fully" : "no operation", summary);
if (partial >= 0 && partial != 1 && partly)
	violation("%s: CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED=%d but cuDeviceGetP2PAtomicCapabilities covers some operations and not others (full: %s; partly: %s; not: %s)",
		TARGET, partial, full, some, none);
`

func init() {
	register("atomics.capability-report", recipe{helpers: capabilityTable() + capabilityHelpers, timeout: specTimeout / 4,
		specs: func(t Target) []spec {
			return []spec{{
				name: fmt.Sprintf("the P2P atomic capabilities the driver advertises for %s agree with each other and with NVML", t),
				code: capabilityReport,
			}}
		}})
}
