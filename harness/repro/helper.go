// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package repro

import "fmt"

// helperC is the helper process of the checks that need a second process
// (the suite's helper roles): the reproducer forks and the child execs the
// same binary, which sees P2PCONF_REPRO_HELPER_FD and serves one request on
// that end of a socketpair. The exec matters: a forked child cannot use
// CUDA its parent initialised, and a probe that faults leaves its context
// unusable, so every request gets a fresh process. Descriptors (VMM
// shareable handles) travel with SCM_RIGHTS, as in the suite.
const helperC = `
/* ---- helper process (fork + exec of this binary, one request each) ---- */

struct helper_req {
	int role;
	int a, b;          /* accessor and owner, or importer and exporter */
	int enable, before, disable;
	uint64_t words, bytes;
	uint32_t seed;
	uint64_t value;    /* a pointer value, a descriptor number */
	unsigned char handle[64];
	/* the VMM fault role (vmm.fault): ranges of one allocation of a, each
	 * with up to two access grants (device, flags; none: no cuMemSetAccess),
	 * the range filled first (or -1), and up to two probes (range, device,
	 * store). */
	int nranges, ngrants[2], grant[2][2][2], fill, nprobes, probe[2][3];
};
struct helper_rep {
	int code;          /* a CUresult the helper observed (0: none) */
	int has_before;
	struct verdict before, data;
	uint64_t value;
	char error[256];
	int nresults, access[2]; /* the VMM fault role: cuMemGetAccess before each probe */
	struct verdict result[2];
	int fds, fds_imported, fds_closed; /* the importer's open descriptors */
};

static void helper_role(const struct helper_req *q, struct helper_rep *p, int fd);

static int send_all(int fd, const void *buf, size_t n, int pass_fd) {
	struct iovec iov = {(void *)buf, n};
	struct msghdr m;
	char ctl[CMSG_SPACE(sizeof(int))];
	memset(&m, 0, sizeof m);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (pass_fd >= 0) {
		memset(ctl, 0, sizeof ctl);
		m.msg_control = ctl;
		m.msg_controllen = sizeof ctl;
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
	}
	return sendmsg(fd, &m, 0) == (ssize_t)n ? 0 : -1;
}

/* recv_all reads one message; a descriptor sent with it lands in *got_fd. */
static int recv_all(int fd, void *buf, size_t n, int *got_fd) {
	struct iovec iov = {buf, n};
	struct msghdr m;
	char ctl[CMSG_SPACE(sizeof(int))];
	memset(&m, 0, sizeof m);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = sizeof ctl;
	ssize_t r = recvmsg(fd, &m, MSG_WAITALL);
	if (got_fd != NULL) {
		*got_fd = -1;
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		if (c != NULL && c->cmsg_type == SCM_RIGHTS) memcpy(got_fd, CMSG_DATA(c), sizeof(int));
	}
	return r == (ssize_t)n ? 0 : -1;
}

/* helper_child serves requests, one report each, until its socket closes,
 * when this process is a helper. */
static int helper_child(void) {
	const char *v = getenv("P2PCONF_REPRO_HELPER_FD");
	if (v == NULL || *v == 0) return 0;
	int fd = atoi(v);
	rt_quiet = 1;
	for (int started = 0;; started = 1) {
		struct helper_req q;
		struct helper_rep p;
		memset(&p, 0, sizeof p);
		int got = -1;
		if (recv_all(fd, &q, sizeof q, &got) != 0) exit(started ? 0 : EXIT_CANNOT_RUN);
		if (!started) rt_start(CHECK_ID, TARGET);
		helper_role(&q, &p, got);
		if (send_all(fd, &p, sizeof p, -1) != 0) exit(0);
	}
}

/* count_fds counts this process's open descriptors (/proc/self/fd). */
static int count_fds(void) {
	DIR *d = opendir("/proc/self/fd");
	if (d == NULL) return -1;
	int n = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (e->d_name[0] != '.') n++;
	closedir(d);
	return n - 1; /* the directory's own descriptor */
}

/* helper is one helper process and this process's end of its socket. */
struct helper {
	pid_t pid;
	int fd;
};

/* helper_open starts a helper process: fork, then exec of this binary. */
static struct helper helper_open(void) {
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) cannot_run("socketpair failed");
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) cannot_run("fork failed");
	if (pid == 0) {
		/* The helper gets nothing of this process but its socket (and a
		 * descriptor only when one is sent), as the suite's helpers. */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != sv[1]) close(fd);
		char fd[16];
		snprintf(fd, sizeof fd, "%d", sv[1]);
		setenv("P2PCONF_REPRO_HELPER_FD", fd, 1);
		execl("/proc/self/exe", "repro-helper", (char *)NULL);
		_exit(EXIT_CANNOT_RUN);
	}
	close(sv[1]);
	struct timeval tv = {(time_t)TIMEOUT_S, 0};
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	struct helper h = {pid, sv[0]};
	return h;
}

/* helper_end closes the socket and reaps the helper (killed first when
 * kill is set) and returns its wait status. */
static int helper_end(struct helper *h, int kill_it) {
	if (h->fd < 0) return 0;
	if (kill_it) kill(h->pid, SIGKILL);
	close(h->fd);
	h->fd = -1;
	int status = 0;
	waitpid(h->pid, &status, 0);
	return status;
}

/* helper_do sends one request (pass_fd, or -1, with SCM_RIGHTS) and reads
 * the report, bounded by the spec's timeout. It returns 1 with the report,
 * or 0 after recording why there is none (the helper is then ended). */
static int helper_do(struct helper *h, const struct helper_req *q, struct helper_rep *p, int pass_fd) {
	if (send_all(h->fd, q, sizeof q[0], pass_fd) == 0 && recv_all(h->fd, p, sizeof p[0], NULL) == 0) return 1;
	int status = helper_end(h, 1);
	if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_CANNOT_RUN) cannot_run("the helper process could not run (see its output above)");
	violation("the helper process ended without a report (status 0x%x)", status);
	return 0;
}

/* helper_fill is a helper's fill: a kernel on dev writes PatternWord(seed, i)
 * into n words at p with grid blocks of 256 threads, and the helper waits,
 * bounded by the spec's timeout. It returns the CUresult instead of
 * recording it: a fault is the helper's report, for the check to judge. */
static CUresult helper_fill(int dev, CUstream s, CUdeviceptr p, uint64_t n, uint32_t seed, unsigned grid) {
	CUfunction f = basic_kernel(dev, "fill", rt_fill_fn);
	void *params[] = {&p, &n, &seed};
	use(dev);
	CUresult r = cuLaunchKernel(f, grid, 1, 1, 256, 1, 1, 0, s, params, NULL);
	double end = rt_now() + TIMEOUT_S;
	if (r == 0) while ((r = cuStreamQuery(s)) == 600 && rt_now() < end) usleep(50);
	return r;
}

/* helper_call runs one request in a fresh helper process. */
static int helper_call(const struct helper_req *q, struct helper_rep *p, int pass_fd) {
	struct helper h = helper_open();
	int ok = helper_do(&h, q, p, pass_fd);
	helper_end(&h, 0);
	return ok;
}
`

// crossProcessSpec is the one spec of a check whose C function
// fn(owner, user, seed) has a helper process on GPU user work with owner's
// memory: on one GPU both are A; on a pair the user is B, which needs peer
// access to A (RequirePeerAccess) first. require is C run before either
// (the check's own requirements; "" none), and the seed is the suite's for
// the target.
func crossProcessSpec(id string, t Target, name, require, fn string) []spec {
	user, seed := "A", seed32(id, t.String())
	if t.Pair {
		require += "if (!require_peer_access(B, A)) return;\n"
		user, seed = "B", seed32(id, t.ID())
	}
	return []spec{{name: name, code: require + fmt.Sprintf("%s(A, %s, %du);\n", fn, user, seed)}}
}
