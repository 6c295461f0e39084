// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim-load: drive the NVIDIA RM ioctl ABI the way libcuda does, without CUDA.
 *
 * The tests and the demo need a program that creates RM clients, reads the GPU's identity and
 * framebuffer size and allocates video memory, against nvsim.ko, against qgpu's per-instance
 * nodes, or against a real NVIDIA driver. It is a thin command line over nvrm_client.
 *
 * Exit status: 0 success; 1 an ioctl failed or RM refused something (for alloc: any allocation
 * refused; for run: also the ring not draining); 2 usage errors.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvrm_client.h"

#define PROG		"nvsim-load"
#define EXIT_RM		1
#define EXIT_USAGE	2

/* Enough allocations to exhaust any framebuffer with small sizes, few enough to stay sane. */
#define MAX_COUNT	65536
/* churn: allocations held while it runs, and rounds */
#define MAX_LIVE	1000000
#define MAX_ROUNDS	1000

/*
 * run: the longest kernel an entry encodes (48 bits of ns), and how much work is kept queued by
 * default and at most (a minute: far more than the ring's 511 kernels hold of short ones)
 */
#define MAX_KERNEL_US	(((1ull << 48) - 1) / 1000)
#define QUEUED_US	50000u
#define MAX_QUEUED_US	60000000u
#define DRAIN_SLACK_S	10.0

struct opts {
	const char *dev;
	int minor;
	bool json;
	bool count_set;
	bool hold_set;
	bool run_set;
	bool churn_set;
	unsigned long count;
	unsigned long live;
	unsigned long rounds;
	double hold;
	double seconds;
	unsigned long kernel_us;
	unsigned long queued_us;
};

static void print_help(FILE *f)
{
	fprintf(f,
		"usage: %s [OPTIONS] COMMAND [ARGS]\n"
		"\n"
		"Drive the NVIDIA RM ioctl ABI like libcuda: RM client, device, subdevice, controls,\n"
		"video memory. Works against nvsim.ko, qgpu instance nodes and the NVIDIA driver.\n"
		"\n"
		"commands:\n"
		"  info                      GPU name, UUID, framebuffer total and free, dma-buf\n"
		"  alloc SIZE [--count N] [--hold SECONDS]\n"
		"                            N video-memory allocations of SIZE bytes (K, M, G, T:\n"
		"                            binary suffixes), kept for SECONDS, then freed; exit 1\n"
		"                            if any was refused\n"
		"  churn SIZE [--count N] [--live L] [--rounds R]\n"
		"                            hold L allocations of SIZE, then R rounds of N\n"
		"                            allocate+free pairs of SIZE, one at a time; reports the\n"
		"                            time per pair of each round (default 1000 pairs, no\n"
		"                            allocations held, 5 rounds)\n"
		"  run [--seconds S] [--kernel-us K] [--queued-us Q]\n"
		"                            set up a channel as libcuda does and keep it busy with\n"
		"                            K-us kernels (nvsim's synthetic GPFIFO entries) for S\n"
		"                            seconds (default 5 s of 1000-us kernels), keeping about\n"
		"                            Q us of them queued, then wait for the ring to drain;\n"
		"                            reports kernels completed, kernels/s and their GPU time\n"
		"                            (busy_ns)\n"
		"\n"
		"options (anywhere on the line):\n"
		"  --dev DIR                 directory holding nvidiactl and nvidiaN (default /dev)\n"
		"  --gpu MINOR               use /dev/nvidiaMINOR (default: the first GPU)\n"
		"  --json                    one JSON object on stdout\n"
		"  --count N                 alloc: number of allocations (default 1); churn:\n"
		"                            pairs per round (default 1000)\n"
		"  --live L                  churn: allocations held meanwhile (default 0)\n"
		"  --rounds R                churn: rounds (default 5)\n"
		"  --hold SECONDS            alloc: keep them this long before freeing (default 0)\n"
		"  --seconds S               run: how long to submit work (default 5)\n"
		"  --kernel-us K             run: duration of each kernel in us (default 1000)\n"
		"  --queued-us Q             run: work kept queued, in us of kernels (default 50000;\n"
		"                            at least 2, at most 511 kernels); one doorbell tops it\n"
		"                            up each time a quarter of it has completed\n"
		"  -h, --help                this text\n"
		"\n"
		"exit status: 0 ok, 1 ioctl failure or RM refusal, 2 usage error\n",
		PROG);
}

static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", PROG);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see %s --help)\n", PROG);
	return EXIT_USAGE;
}

/*
 * Parse a byte count: decimal digits with an optional binary suffix K, M, G or T (any case,
 * optionally followed by "iB" or "B"). Zero, overflow and anything else are rejected.
 */
static int parse_size(const char *s, u64 *out)
{
	static const char suffixes[] = "KMGT";
	unsigned long long v;
	const char *p;
	char *end;
	unsigned int shift = 0;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end) {
		p = strchr(suffixes, end[0] & ~0x20);
		if (!p || !end[0])
			return -EINVAL;
		shift = 10 * (unsigned int)(p - suffixes + 1);
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B"))
			end += strlen(end);
		if (*end)
			return -EINVAL;
	}
	if (!v || v > (~0ULL >> shift))
		return -EINVAL;
	*out = (u64)v << shift;
	return 0;
}

static int parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_seconds(const char *s, double *out)
{
	double v;
	char *end;

	if (!s || ((*s < '0' || *s > '9') && *s != '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v >= 0) || v > 1e7)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Print a JSON string literal: the name and UUID come from the driver, so escape them. */
static void json_str(const char *s)
{
	const unsigned char *p;

	putchar('"');
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

/* One line on stderr naming the step that failed; exit status 1. */
static int fail(const struct nvrm_client *c)
{
	fprintf(stderr, "%s: %s\n", PROG, nvrm_client_strerror(c));
	return EXIT_RM;
}

/* Free the client; a refusal there is reported like any other failure. */
static int finish(struct nvrm_client *c, int rc)
{
	u32 status;
	int ret;

	ret = nvrm_client_close(c, &status);
	if ((ret || status != NVRM_OK) && rc == 0)
		return fail(c);
	return rc;
}

static int bring_up(struct nvrm_client *c, const struct opts *o)
{
	u32 status;
	int ret;

	nvrm_client_init(c);
	ret = nvrm_client_open(c, o->dev, o->minor, &status);
	if (ret || status != NVRM_OK)
		return -1;
	return 0;
}

static int cmd_info(const struct opts *o)
{
	struct nvrm_client c;
	struct nvrm_client_fb fb;
	char name[NVRM_GPU_MAX_NAME_STRING_LENGTH + 1];
	char uuid[NVRM_GPU_MAX_GID_LENGTH + 1];
	u64 total, free_b, heap, usable;
	const char *dmabuf = NULL;
	bool capable = false;
	u32 status;

	if (bring_up(&c, o))
		goto err;
	if (nvrm_client_gpu_name(&c, name, sizeof(name), &status) || status != NVRM_OK)
		goto err;
	if (nvrm_client_gpu_uuid(&c, uuid, sizeof(uuid), &status) || status != NVRM_OK)
		goto err;
	if (nvrm_client_fb_info(&c, &fb, &status) || status != NVRM_OK)
		goto err;
	/* A driver that cannot say leaves it unknown rather than failing info. */
	if (!nvrm_client_dmabuf_capable(&c, &capable, &status) && status == NVRM_OK)
		dmabuf = capable ? "yes" : "no";

	/* FB_GET_INFO values are KiB. */
	total = (u64)fb.total_ram_kib * 1024;
	free_b = (u64)fb.heap_free_kib * 1024;
	heap = (u64)fb.heap_size_kib * 1024;
	usable = (u64)fb.usable_ram_kib * 1024;

	if (o->json) {
		printf("{\"driver_version\": ");
		json_str(c.version);
		printf(", \"abi_family\": ");
		json_str(c.abi->family);
		printf(", \"minor\": %u, \"gpu_index\": %u, \"device_instance\": %u",
		       c.card.minor_number, c.gpu_index, c.device_instance);
		printf(", \"name\": ");
		json_str(name);
		printf(", \"uuid\": ");
		json_str(uuid);
		printf(", \"fb_total_bytes\": %llu, \"fb_free_bytes\": %llu", total, free_b);
		printf(", \"fb_heap_bytes\": %llu, \"fb_usable_bytes\": %llu", heap, usable);
		printf(", \"dmabuf\": %s}\n",
		       dmabuf ? (capable ? "true" : "false") : "null");
	} else {
		printf("driver:    %s (ABI profile %s)\n", c.version, c.abi->family);
		printf("gpu:       %u (minor %u, device instance %u)\n", c.gpu_index,
		       c.card.minor_number, c.device_instance);
		printf("name:      %s\n", name);
		printf("uuid:      %s\n", uuid);
		printf("fb total:  %llu bytes (%llu MiB)\n", total, total >> 20);
		printf("fb free:   %llu bytes (%llu MiB)\n", free_b, free_b >> 20);
		printf("fb heap:   %llu bytes (%llu MiB)\n", heap, heap >> 20);
		printf("fb usable: %llu bytes (%llu MiB)\n", usable, usable >> 20);
		printf("dma-buf:   %s\n", dmabuf ? dmabuf : "unknown");
	}
	return finish(&c, 0);
err:
	fail(&c);
	return finish(&c, EXIT_RM);
}

static void hold_for(double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Allocate, or free, video memory under handle @i of the churn's range; -1 on any failure. */
static int churn_alloc(struct nvrm_client *c, unsigned long i, u64 size)
{
	u32 status;

	if (nvrm_client_alloc_vidmem(c, NVRM_CLIENT_HMEMORY_BASE + (u32)i, size, NULL, &status) ||
	    status != NVRM_OK)
		return -1;
	return 0;
}

static int churn_free(struct nvrm_client *c, unsigned long i)
{
	u32 status;

	if (nvrm_client_free(c, c->hdevice, NVRM_CLIENT_HMEMORY_BASE + (u32)i, &status) ||
	    status != NVRM_OK)
		return -1;
	return 0;
}

/*
 * The cost of an allocation in a client that holds many: --live allocations first, then rounds
 * of --count allocate+free pairs under the next handle, timed per round. What a compiled client
 * such as libcuda pays per call, without an interpreter between the calls (bench_memory.py).
 */
static int cmd_churn(const struct opts *o, u64 size)
{
	struct nvrm_client c;
	double *ns, start;
	unsigned long i, r;

	ns = calloc(o->rounds, sizeof(*ns));
	if (!ns) {
		fprintf(stderr, "%s: %s\n", PROG, strerror(ENOMEM));
		return EXIT_RM;
	}
	if (bring_up(&c, o))
		goto err;
	for (i = 0; i < o->live; i++)
		if (churn_alloc(&c, i, size))
			goto err;
	for (r = 0; r < o->rounds; r++) {
		start = now_s();
		for (i = 0; i < o->count; i++)
			if (churn_alloc(&c, o->live, size) || churn_free(&c, o->live))
				goto err;
		ns[r] = (now_s() - start) * 1e9 / (double)o->count;
		if (!o->json)
			printf("round %lu/%lu: %.0f ns per allocate+free pair\n", r + 1, o->rounds,
			       ns[r]);
	}
	if (o->json) {
		printf("{\"driver_version\": ");
		json_str(c.version);
		printf(", \"minor\": %u, \"size\": %llu, \"live\": %lu, \"pairs_per_round\": %lu",
		       c.card.minor_number, size, o->live, o->count);
		printf(", \"ns_per_pair\": [");
		for (r = 0; r < o->rounds; r++)
			printf("%s%.0f", r ? ", " : "", ns[r]);
		printf("]}\n");
	}
	/* The held ones go with the client (RM frees its subtree). */
	free(ns);
	return finish(&c, 0);
err:
	free(ns);
	fail(&c);
	return finish(&c, EXIT_RM);
}

static int cmd_alloc(const struct opts *o, u64 size)
{
	struct nvrm_client c;
	u32 *statuses;
	u64 got, allocated = 0;
	unsigned long i, done = 0, ok = 0;
	char s[64];
	u32 status;
	int rc = 0;

	statuses = calloc(o->count, sizeof(*statuses));
	if (!statuses) {
		fprintf(stderr, "%s: %s\n", PROG, strerror(ENOMEM));
		return EXIT_RM;
	}
	if (bring_up(&c, o))
		goto err;

	for (i = 0; i < o->count; i++) {
		if (nvrm_client_alloc_vidmem(&c, NVRM_CLIENT_HMEMORY_BASE + (u32)i, size, &got,
					     &statuses[i]))
			goto err;
		done++;
		nvrm_client_status_str(statuses[i], s, sizeof(s));
		if (statuses[i] == NVRM_OK) {
			ok++;
			allocated += got;
		}
		if (!o->json) {
			printf("alloc %lu/%lu: %llu bytes: %s", i + 1, o->count, size, s);
			if (statuses[i] == NVRM_OK)
				printf(", got %llu bytes", got);
			putchar('\n');
		}
	}
	if (o->json) {
		printf("{\"driver_version\": ");
		json_str(c.version);
		printf(", \"minor\": %u, \"size\": %llu", c.card.minor_number, size);
		printf(", \"requested\": %lu, \"succeeded\": %lu, \"failed\": %lu", o->count, ok,
		       o->count - ok);
		printf(", \"statuses\": [");
		for (i = 0; i < o->count; i++)
			printf("%s\"%s\"", i ? ", " : "", nvrm_status_name(statuses[i]));
		printf("], \"allocated_bytes\": %llu}\n", allocated);
	}
	/* Whoever watches us (tests, the demo) must see the results before the hold ends. */
	fflush(stdout);
	hold_for(o->hold);

	/* Free each allocation explicitly: RM_FREE of single objects is part of what we drive. */
	for (i = 0; i < done; i++) {
		if (statuses[i] != NVRM_OK)
			continue;
		if (nvrm_client_free(&c, c.hdevice, NVRM_CLIENT_HMEMORY_BASE + (u32)i, &status) ||
		    status != NVRM_OK)
			goto err;
	}
	rc = ok == o->count ? 0 : EXIT_RM;
	free(statuses);
	return finish(&c, rc);
err:
	free(statuses);
	fail(&c);
	return finish(&c, EXIT_RM);
}

/* Kernels submitted and not done yet, by the progress semaphore (not GP_GET: see nvrm_work). */
static u32 in_flight(const struct nvrm_work *w)
{
	return w->kernels - nvrm_work_done(w);
}

/*
 * Keep about --queued-us of kernels queued (never a full ring), topping up with one doorbell when
 * a quarter of it has completed; poll the semaphore with short sleeps. Then wait for the queue to
 * drain.
 */
static int submit_for(struct nvrm_client *c, struct nvrm_work *w, const struct opts *o,
		      u64 *kernels, double *elapsed)
{
	u64 depth64 = o->queued_us / o->kernel_us;
	u32 depth, n, queued;
	double start = now_s(), end = start + o->seconds, deadline;
	useconds_t nap;

	depth = depth64 < 2 ? 2 : depth64 > NVRM_WORK_MAX_KERNELS ? NVRM_WORK_MAX_KERNELS :
		(u32)depth64;
	nap = (useconds_t)(o->kernel_us * depth / 8 < 2000 ? o->kernel_us * depth / 8 : 2000);
	*kernels = 0;
	while (now_s() < end) {
		queued = in_flight(w);
		if (queued <= depth - depth / 4) {
			for (n = queued; n < depth; n++)
				nvrm_work_push_kernel(w, (u64)o->kernel_us * 1000);
			*kernels += depth - queued;
			nvrm_work_kick(w);
		}
		usleep(nap);
	}
	deadline = now_s() + DRAIN_SLACK_S + 4 * (double)o->kernel_us * depth / 1e6;
	while (in_flight(w)) {
		if (now_s() > deadline) {
			snprintf(c->errmsg, sizeof(c->errmsg),
				 "run: the queue did not drain (%u of %u kernels done, GP_GET %u, GP_PUT %u)",
				 nvrm_work_done(w), w->kernels, nvrm_work_gp_get(w), w->put);
			return -ETIMEDOUT;
		}
		usleep(nap);
	}
	*elapsed = now_s() - start;
	return 0;
}

static int cmd_run(const struct opts *o)
{
	struct nvrm_work w = { .usermode_fd = -1, .mem_fd = -1 };
	struct nvrm_client c;
	double elapsed, rate;
	u64 kernels, busy_ns;
	u32 status;

	if (bring_up(&c, o))
		goto err;
	if (nvrm_work_open(&c, &w, o->dev, &status))
		goto err;
	if (submit_for(&c, &w, o, &kernels, &elapsed))
		goto err;
	/* The GPU time of our kernels: all of them completed. */
	busy_ns = kernels * o->kernel_us * 1000;
	rate = elapsed > 0 ? (double)kernels / elapsed : 0;
	if (o->json) {
		printf("{\"driver_version\": ");
		json_str(c.version);
		printf(", \"minor\": %u, \"token\": %u, \"seconds\": %.3f, \"kernel_us\": %lu",
		       c.card.minor_number, w.token, o->seconds, o->kernel_us);
		printf(", \"queued_us\": %lu", o->queued_us);
		printf(", \"kernels\": %llu, \"kernels_per_s\": %.1f, \"busy_ns\": %llu",
		       kernels, rate, busy_ns);
		printf(", \"elapsed_s\": %.3f}\n", elapsed);
	} else {
		printf("kernels:       %llu of %lu us\n", kernels, o->kernel_us);
		printf("kernels/s:     %.1f\n", rate);
		printf("busy:          %llu ns in %.3f s\n", busy_ns, elapsed);
	}
	nvrm_work_close(&w);
	return finish(&c, 0);
err:
	fail(&c);
	nvrm_work_close(&w);
	return finish(&c, EXIT_RM);
}

enum {
	OPT_DEV = 256,
	OPT_GPU,
	OPT_JSON,
	OPT_COUNT,
	OPT_HOLD,
	OPT_SECONDS,
	OPT_KERNEL_US,
	OPT_QUEUED_US,
	OPT_LIVE,
	OPT_ROUNDS,
};

static const struct option long_opts[] = {
	{ "dev",	required_argument,	NULL, OPT_DEV },
	{ "gpu",	required_argument,	NULL, OPT_GPU },
	{ "json",	no_argument,		NULL, OPT_JSON },
	{ "count",	required_argument,	NULL, OPT_COUNT },
	{ "hold",	required_argument,	NULL, OPT_HOLD },
	{ "seconds",	required_argument,	NULL, OPT_SECONDS },
	{ "kernel-us",	required_argument,	NULL, OPT_KERNEL_US },
	{ "queued-us",	required_argument,	NULL, OPT_QUEUED_US },
	{ "live",	required_argument,	NULL, OPT_LIVE },
	{ "rounds",	required_argument,	NULL, OPT_ROUNDS },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 },
};

int main(int argc, char **argv)
{
	struct opts o = { .dev = "/dev", .minor = -1, .count = 1, .seconds = 5, .kernel_us = 1000,
			  .queued_us = QUEUED_US, .rounds = 5 };
	unsigned long v;
	const char *cmd;
	u64 size;
	int opt;

	opterr = 0;
	/* GNU getopt permutes, so options may come before or after the command and its args. */
	while ((opt = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
		switch (opt) {
		case OPT_DEV:
			o.dev = optarg;
			break;
		case OPT_GPU:
			/* Minor 255 is nvidiactl; GPU minors are below it. */
			if (parse_ulong(optarg, 0, 254, &v))
				return bad_usage("--gpu: not a GPU minor number: '%s'", optarg);
			o.minor = (int)v;
			break;
		case OPT_JSON:
			o.json = true;
			break;
		case OPT_COUNT:
			if (parse_ulong(optarg, 1, MAX_COUNT, &o.count))
				return bad_usage("--count: not a count in 1..65536: '%s'",
						 optarg);
			o.count_set = true;
			break;
		case OPT_HOLD:
			if (parse_seconds(optarg, &o.hold))
				return bad_usage("--hold: not a number of seconds: '%s'", optarg);
			o.hold_set = true;
			break;
		case OPT_SECONDS:
			if (parse_seconds(optarg, &o.seconds))
				return bad_usage("--seconds: not a number of seconds: '%s'",
						 optarg);
			o.run_set = true;
			break;
		case OPT_KERNEL_US:
			if (parse_ulong(optarg, 1, MAX_KERNEL_US, &o.kernel_us))
				return bad_usage("--kernel-us: not a duration in us: '%s'", optarg);
			o.run_set = true;
			break;
		case OPT_LIVE:
			if (parse_ulong(optarg, 0, MAX_LIVE, &o.live))
				return bad_usage("--live: not a count in 0..1000000: '%s'", optarg);
			o.churn_set = true;
			break;
		case OPT_ROUNDS:
			if (parse_ulong(optarg, 1, MAX_ROUNDS, &o.rounds))
				return bad_usage("--rounds: not a count in 1..1000: '%s'", optarg);
			o.churn_set = true;
			break;
		case OPT_QUEUED_US:
			if (parse_ulong(optarg, 1, MAX_QUEUED_US, &o.queued_us))
				return bad_usage("--queued-us: not a duration in us: '%s'", optarg);
			o.run_set = true;
			break;
		case 'h':
			print_help(stdout);
			return 0;
		case ':':
			return bad_usage("option '%s' needs an argument", argv[optind - 1]);
		default:
			return bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return bad_usage("missing command%s", "");
	cmd = argv[optind++];

	if (strcmp(cmd, "alloc") && o.hold_set)
		return bad_usage("--hold applies to alloc only, not '%s'", cmd);
	if (strcmp(cmd, "alloc") && strcmp(cmd, "churn") && o.count_set)
		return bad_usage("--count applies to alloc and churn only, not '%s'", cmd);
	if (strcmp(cmd, "churn") && o.churn_set)
		return bad_usage("--live and --rounds apply to churn only, not '%s'", cmd);
	if (strcmp(cmd, "run") && o.run_set)
		return bad_usage("--seconds, --kernel-us, --queued-us: run only, not '%s'", cmd);

	if (!strcmp(cmd, "info")) {
		if (optind < argc)
			return bad_usage("info: unexpected argument '%s'", argv[optind]);
		return cmd_info(&o);
	}
	if (!strcmp(cmd, "alloc")) {
		if (optind >= argc)
			return bad_usage("alloc: missing SIZE%s", "");
		if (parse_size(argv[optind], &size))
			return bad_usage("alloc: bad SIZE '%s' (bytes, or with K/M/G/T)",
					   argv[optind]);
		if (optind + 1 < argc)
			return bad_usage("alloc: unexpected argument '%s'", argv[optind + 1]);
		return cmd_alloc(&o, size);
	}
	if (!strcmp(cmd, "churn")) {
		if (optind >= argc)
			return bad_usage("churn: missing SIZE%s", "");
		if (parse_size(argv[optind], &size))
			return bad_usage("churn: bad SIZE '%s' (bytes, or with K/M/G/T)",
					   argv[optind]);
		if (optind + 1 < argc)
			return bad_usage("churn: unexpected argument '%s'", argv[optind + 1]);
		if (!o.count_set)
			o.count = 1000;
		return cmd_churn(&o, size);
	}
	if (!strcmp(cmd, "run")) {
		if (optind < argc)
			return bad_usage("run: unexpected argument '%s'", argv[optind]);
		return cmd_run(&o);
	}
	return bad_usage("unknown command '%s'", cmd);
}
