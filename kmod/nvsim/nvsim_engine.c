// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the simulated engine, one per GPU.
 *
 * A kthread per GPU executes the work channels submit: it reads synthetic GPFIFO entries from
 * their rings, "runs" each kernel for its encoded duration of real time, advances GP_GET in USERD,
 * and time-slices the channel groups on the runlist round robin. What it counts (busy time per
 * channel group, per process and per GPU) is the ground truth tests and benchmarks compare qgpu's
 * view against.
 *
 * Lock order: nvsim_rm_lock, then nvsim_engine.lock. RM handlers (controls, object construction
 * and release) run under nvsim_rm_lock and take the engine lock; the engine thread and the doorbell
 * take the engine lock only, never nvsim_rm_lock. Non-stall notifications are delivered by the
 * engine thread with no lock held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "nvsim_internal.h"

/**
 * DOC: the simulated engine and its modelling assumptions
 *
 * Work. A channel's GPFIFO ring is an array of 8-byte entries in a memory object; USERD holds
 * GP_GET (@0x88, written by the engine) and GP_PUT (@0x8C, written by user space), both entry
 * indices. Entries use nvsim's own synthetic format (not NVIDIA's pushbuffer): a little-endian
 * u64 whose bits 63:56 are an opcode: 0x00 NOP (completes at once), 0xA5 KERNEL (runs for bits
 * 47:0 nanoseconds of GPU time), 0xA6 KERNEL then a non-stall notification on the graphics
 * engine's notifier (NV2080_NOTIFIERS_GRAPHICS, where RM signals NV01_EVENT_NONSTALL_INTR events
 * for GR work completion), 0xA7 SEMAPHORE RELEASE (writes bits 31:0 to the 32-bit word at byte
 * offset bits 55:32 of the memory object that holds the ring, once the entries before it are
 * done; completes at once). Any other opcode, or a release outside that object or not aligned,
 * RCs the channel: it stops for good, GP_GET stays at the bad entry, its error counter counts it
 * and the kernel log says so.
 *
 * Progress. With userd_writeback (the default) the engine writes GP_GET to USERD as each entry
 * completes. Real GPUs differ: from VOLTA_CHANNEL_GPFIFO_A on, the hardware no longer writes
 * GP_GET back as the channel progresses but on a timer, for compatibility, and from
 * BLACKWELL_CHANNEL_GPFIFO_A on not at all; user space is to track progress with semaphore
 * releases of its own (nouveau's "USERD writeback" patch, Ben Skeggs, NVIDIA, 2025). N models
 * Blackwell: USERD's GP_GET stays as RM initialised it, and only a release says what was done.
 * userd_writeback_us, when not 0, models the timer of Volta to Hopper instead: what completed is
 * written back at most that long after (all channels the engine moved, every period).
 * gp_get_ahead (default 1): the host fetches entries ahead of execution, and GP_GET says what it
 * fetched: while an entry executes, USERD's GP_GET is past it and gp_get_ahead more (as far as
 * GP_PUT goes), written when the entry starts and when a doorbell brings more while it runs; it
 * never moves back. Measured on an H200 with GSP 580.159.04: GP_GET passed an isolated kernel's
 * entry 13-18 us after the doorbell, long before it completed, and back to back it ran one entry
 * past the executing kernel. 0: GP_GET passes an entry only when it completes.
 *
 * Scheduling. The runlist is the channel groups (TSGs) enabled by GPFIFO_SCHEDULE(1), in round
 * robin order. One TSG is on the engine at a time (the GPU is modelled as one engine that a kernel
 * fills completely). It runs until it has no work left, or its timeslice (wall time since it got
 * the engine, default 1024 us as Volta+ RM) ends while another runlisted TSG has work, or it is
 * preempted; it then goes to the back of the runlist. Alone, it keeps the engine. Within a TSG its
 * channels take turns entry by entry. The engine models one kernel at a time: no concurrency
 * between channels or TSGs.
 *
 * Preemption. A kernel of a context with compute preemption CILP can be taken off the engine
 * only at the next multiple of preempt_granularity_us of its own execution time; at 0 it is
 * immediate. With WFI (a new context's, as on an H200 with GSP 580) or CTA (nvsim's kernels are
 * one CTA each) it runs to its end first; a preempt asked for gives up after ctxsw_timeout_ms
 * and kills the context (nvsim_engine_request_preempt()). Between two entries preemption is
 * immediate. A preempted kernel keeps its remaining duration and resumes when its TSG runs again.
 * Timeslice ends, PREEMPT, GPFIFO_SCHEDULE(0) and FIFO_DISABLE_CHANNELS(bOnlyDisableScheduling=0)
 * all preempt this way.
 *
 * Time. The engine follows real time (ktime) but does not depend on waking up on time: when its
 * thread runs late (hrtimer slack, TCG), it replays what the GPU did in the meantime, completing
 * entries back to back from the time each was known to the engine (a doorbell brings the engine
 * up to date before it reads GP_PUT, so work never starts before it was submitted). A control
 * takes effect when it is made, and a preemption at the granularity boundary that follows. Busy
 * time is the time an entry executed; it is counted per channel, per TSG, per process (the tgid
 * of the client that allocated the TSG; totals are kept after the process exits, until unload)
 * and per GPU.
 *
 * Switchable assumptions (module parameters, writable at runtime, so qgpu is tested under each):
 *
 * controls_effective (default Y): N makes GPFIFO_SCHEDULE(0), PREEMPT, SET_TIMESLICE and
 * FIFO_DISABLE_CHANNELS return NV_OK while the engine ignores them, as measured on GSP-based GPUs
 * by some; GET_TIMESLICE still reads back the value set. GPFIFO_SCHEDULE(1) always takes effect
 * (nothing would ever run otherwise).
 *
 * schedule_off_effective (default N): whether a TSG's GPFIFO_SCHEDULE(0) takes it off the
 * runlist. Measured on an H200 with GSP firmware 580.159.04 (session 17): it returns NV_OK and
 * changes nothing, while FIFO_DISABLE_CHANNELS stops the listed channels at once (and only its
 * own enable starts them again), SET_TIMESLICE shares the engine between busy TSGs in proportion
 * to their timeslices, and PREEMPT only moves a TSG to the back of the runlist. Y is the
 * behaviour the headers describe.
 *
 * doorbell_required (default Y): a channel sees a new GP_PUT only when its work-submit token is
 * written to the doorbell. N: the engine also re-reads GP_PUT of every channel of a runlisted TSG
 * whenever its thread runs: at every timeslice end while busy, and every 1 ms while idle with
 * anything on the runlist (the GPU's host polling USERD).
 *
 * userd_writeback (default Y), userd_writeback_us (default 0): see Progress.
 *
 * preempt_granularity_us (default 100): see Preemption.
 *
 * channel_ids (default 2048): the channel ids of a GPU's runlist, shared by every process
 * (NV_CHRAM_CHANNEL__SIZE_1 in open-gpu-kernel-modules' gb202 dev_runlist.h). A channel past them
 * fails with NV_ERR_NO_FREE_FIFOS, as kfifoChidMgrAllocChid() says when they run out. Lowering
 * it takes no channel away; it lets tests run out with fewer allocations.
 *
 * default_timeslice_us (default 1024): the timeslice of new TSGs. SET_TIMESLICE accepts any value
 * (RM's minimum, kfifoRunlistGetMinTimeSlice, is 0); the engine uses it clamped to 1 us..60 s.
 *
 * Trace. The engine keeps its last NVSIM_TRACE_LEN events (README.md, "Trace"): a doorbell
 * store (the time of the fault that saw it), the engine reading it, a TSG joining or leaving the
 * runlist (the time of the control), and a TSG going on or off the engine (in simulated time:
 * when the GPU did it, even when the thread replays it later). Recording is a store into a
 * fixed array under the engine lock, which every such path holds already.
 */

static bool controls_effective = true;
module_param(controls_effective, bool, 0644);
MODULE_PARM_DESC(controls_effective,
		 "TSG/channel scheduling controls take effect (N: NV_OK but ignored; default Y)");

static bool schedule_off_effective;
module_param(schedule_off_effective, bool, 0644);
MODULE_PARM_DESC(schedule_off_effective,
		 "a TSG's GPFIFO_SCHEDULE(0) takes it off the runlist (default N: NV_OK and ignored, as on an H200 with GSP 580)");

static bool doorbell_required = true;

/* A change of doorbell_required wakes the engines: an idle one may have to start polling. */
static void nvsim_engines_kick_all(void);

static int nvsim_set_doorbell_required(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_bool(val, kp);

	if (!ret)
		nvsim_engines_kick_all();
	return ret;
}

static const struct kernel_param_ops nvsim_doorbell_required_ops = {
	.set = nvsim_set_doorbell_required,
	.get = param_get_bool,
};
module_param_cb(doorbell_required, &nvsim_doorbell_required_ops, &doorbell_required, 0644);
MODULE_PARM_DESC(doorbell_required,
		 "A channel sees a new GP_PUT only after a doorbell (N: also polled; default Y)");

static bool userd_writeback = true;
module_param(userd_writeback, bool, 0644);
MODULE_PARM_DESC(userd_writeback,
		 "The engine writes GP_GET to USERD as entries complete (N: never, as Blackwell; default Y)");

static unsigned int gp_get_ahead = 1;
module_param(gp_get_ahead, uint, 0644);
MODULE_PARM_DESC(gp_get_ahead,
		 "Entries the host fetches past the executing one: USERD's GP_GET passes them before the kernel before them completes (1, the default, as on an H200 with GSP 580; 0: GP_GET moves as entries complete)");

static unsigned int userd_writeback_us;
module_param(userd_writeback_us, uint, 0644);
MODULE_PARM_DESC(userd_writeback_us,
		 "With userd_writeback: GP_GET written back on a timer of this period instead of at each completion (0, the default: at each completion)");

static unsigned int preempt_granularity_us = 100;
module_param(preempt_granularity_us, uint, 0644);
MODULE_PARM_DESC(preempt_granularity_us,
		 "A running kernel of a CILP context can be preempted every this many us of its execution (0: at once; default 100)");

static unsigned int ctxsw_timeout_ms = 3000;
module_param(ctxsw_timeout_ms, uint, 0644);
MODULE_PARM_DESC(ctxsw_timeout_ms,
		 "How long a preempt waits for a context it cannot switch out (compute preemption WFI or CTA, a kernel executing) before that context is killed: Xid 109, 2.7-4.3 s on an H200 with GSP 580 (default 3000)");

static unsigned int channel_ids = 2048;
module_param(channel_ids, uint, 0644);
MODULE_PARM_DESC(channel_ids,
		 "Channel ids of each GPU, for all processes together; a channel past them fails with NV_ERR_NO_FREE_FIFOS (default 2048, a runlist's)");

static unsigned int default_timeslice_us = NVRM_TSG_DEFAULT_TIMESLICE_US;
module_param(default_timeslice_us, uint, 0644);
MODULE_PARM_DESC(default_timeslice_us, "Timeslice of new channel groups in us (default 1024)");

#define NVSIM_POLL_NS			NSEC_PER_MSEC
#define NVSIM_TRACE_LEN			4096	/* engine events kept, a power of two */
#define NVSIM_MAX_TIMESLICE_US		(60ULL * USEC_PER_SEC)
#define NVSIM_NO_TIME			S64_MAX

/* nvsim's synthetic GPFIFO entry (not NVIDIA's format; see the DOC above) */
#define NVSIM_GP_OPCODE(e)		((u8)((e) >> 56))
#define NVSIM_GP_DURATION_NS(e)		((e) & GENMASK_ULL(47, 0))
#define NVSIM_GP_OP_NOP			0x00
#define NVSIM_GP_OP_KERNEL		0xA5
#define NVSIM_GP_OP_KERNEL_NOTIFY	0xA6
#define NVSIM_GP_OP_SEM_RELEASE		0xA7
#define NVSIM_GP_SEM_OFFSET(e)		(((e) >> 32) & 0xffffff)
#define NVSIM_GP_SEM_PAYLOAD(e)		((u32)(e))

/**
 * struct nvsim_proc_stats - what one process's channel groups executed on one GPU since load
 * @node: entry in struct nvsim_engine.procs
 * @tgid: the process
 * @busy_ns: GPU time its kernels executed
 * @kernels: KERNEL entries completed
 */
struct nvsim_proc_stats {
	struct list_head node;
	pid_t tgid;
	u64 busy_ns;
	u64 kernels;
};

/**
 * enum nvsim_trace_kind - what an engine trace entry records
 * @NVSIM_TR_RING: a doorbell store was seen (the fault; @tgid stored)
 * @NVSIM_TR_SEEN: the engine read the GP_PUTs that store published (@tgid stored)
 * @NVSIM_TR_RL_ADD: a TSG joined the runlist
 * @NVSIM_TR_RL_DEL: a TSG left the runlist
 * @NVSIM_TR_ON: a TSG got the engine
 * @NVSIM_TR_OFF: a TSG left the engine (out of work, timeslice, preemption or freed)
 * @NVSIM_TR_FIFO_DISABLE: a FIFO_DISABLE_CHANNELS(disable) took effect (the entry's tgid is the
 *	caller's, its channels how many it listed)
 * @NVSIM_TR_FIFO_ENABLE: the same, enabling
 */
enum nvsim_trace_kind {
	NVSIM_TR_RING,
	NVSIM_TR_SEEN,
	NVSIM_TR_RL_ADD,
	NVSIM_TR_RL_DEL,
	NVSIM_TR_ON,
	NVSIM_TR_OFF,
	NVSIM_TR_FIFO_DISABLE,
	NVSIM_TR_FIFO_ENABLE,
};

static const char *const nvsim_trace_names[] = {
	[NVSIM_TR_RING] = "ring",
	[NVSIM_TR_SEEN] = "seen",
	[NVSIM_TR_RL_ADD] = "runlist_add",
	[NVSIM_TR_RL_DEL] = "runlist_del",
	[NVSIM_TR_ON] = "on",
	[NVSIM_TR_OFF] = "off",
	[NVSIM_TR_FIFO_DISABLE] = "fifo_disable",
	[NVSIM_TR_FIFO_ENABLE] = "fifo_enable",
};

/**
 * struct nvsim_trace_ent - one engine event
 * @ns: when (ktime ns)
 * @tgid: the process (of the TSG, or the one that stored to the doorbell)
 * @tsg: the TSG's id, or -1
 * @kind: what (enum nvsim_trace_kind)
 * @channels: the channels a FIFO_DISABLE_CHANNELS listed (0 for other kinds)
 */
struct nvsim_trace_ent {
	s64 ns;
	pid_t tgid;
	s32 tsg;
	u8 kind;
	u8 channels;
};

/**
 * struct nvsim_engine - the simulated engine of one GPU
 * @gpu: the GPU
 * @thread: the engine thread
 * @wq: the thread sleeps here until @kick or its next deadline
 * @preempt_wq: PREEMPT callers with bWait sleep here
 * @lock: protects everything below, and the fields of struct nvsim_tsg and nvsim_channel that
 *	say so; nests inside nvsim_rm_lock (taken after it, never before)
 * @kick: something changed; the thread must look again
 * @tsgs: every TSG of the GPU (struct nvsim_tsg.all_node)
 * @runlist: runlisted TSGs in round-robin order (struct nvsim_tsg.rl_node)
 * @procs: per-process totals (struct nvsim_proc_stats), kept until unload
 * @tokens: work-submit token -> channel
 * @next_token: where token allocation continues (cyclic, so tokens are not reused soon)
 * @next_tsg_id: the id of the next TSG
 * @nchannels: channel ids (of channel_ids) held: by channels, and by UVM's retention of freed
 *	ones (nvsim_uvm_channel.c)
 * @cur: the TSG on the engine, or NULL; it has a channel with work
 * @cur_chan: the channel of @cur whose entry is executing (non-NULL when @cur is)
 * @vt: the time (ktime ns) up to which the GPU's execution has been simulated
 * @slice_start: when @cur's current timeslice began
 * @slice_end: when it ends
 * @preempt_at: when @cur is taken off the engine (a preemption point), or NVSIM_NO_TIME
 * @preempt_kills: @preempt_at is a preempt giving up on a context it could not switch out
 *	(ctxsw_timeout_ms): the context is killed there
 * @wb_at: when the timer writes moved GP_GETs back to USERD (userd_writeback_us), or
 *	NVSIM_NO_TIME when none moved since the last time
 * @busy_ns: GPU time kernels executed since load
 * @kernels: KERNEL entries completed since load
 * @notify_pending: non-stall notifications the thread has to deliver
 * @trace: the last NVSIM_TRACE_LEN events, a ring indexed by @trace_seq
 * @trace_seq: events recorded since load
 * @proc: its /proc/driver/nvsim/gpu<N>/engine file
 * @proc_busy: its /proc/driver/nvsim/gpu<N>/busy file
 * @proc_trace: its /proc/driver/nvsim/gpu<N>/trace file
 */
struct nvsim_engine {
	struct nvsim_gpu *gpu;
	struct task_struct *thread;
	wait_queue_head_t wq;
	wait_queue_head_t preempt_wq;

	struct mutex lock;	/* protects the fields below; see above */
	bool kick;
	struct list_head tsgs;
	struct list_head runlist;
	struct list_head procs;
	struct xarray tokens;
	u32 next_token;
	u32 next_tsg_id;
	unsigned int nchannels;
	struct nvsim_tsg *cur;
	struct nvsim_channel *cur_chan;
	s64 vt;
	s64 slice_start;
	s64 slice_end;
	s64 preempt_at;
	bool preempt_kills;
	s64 wb_at;
	u64 busy_ns;
	u64 kernels;
	unsigned int notify_pending;
	struct nvsim_trace_ent *trace;
	u64 trace_seq;
	struct proc_dir_entry *proc;
	struct proc_dir_entry *proc_busy;
	struct proc_dir_entry *proc_trace;
};

/* Record an engine event, under the engine lock; returns its entry, for what some kinds add. */
static struct nvsim_trace_ent *nvsim_trace(struct nvsim_engine *e, enum nvsim_trace_kind kind,
					   s64 ns, pid_t tgid, const struct nvsim_tsg *tsg)
{
	struct nvsim_trace_ent *t = &e->trace[e->trace_seq++ & (NVSIM_TRACE_LEN - 1)];

	lockdep_assert_held(&e->lock);
	t->ns = ns;
	t->tgid = tsg ? tsg->tgid : tgid;
	t->tsg = tsg ? (s32)tsg->id : -1;
	t->kind = kind;
	t->channels = 0;
	return t;
}

/* Lockless: kick is only ever set here, and the thread rereads everything under the lock. */
static void nvsim_engines_kick_all(void)
{
	unsigned int i;

	for (i = 0; i < nvsim_num_gpus; i++) {
		struct nvsim_engine *e = READ_ONCE(nvsim_gpus[i].engine);

		if (e) {
			WRITE_ONCE(e->kick, true);
			wake_up(&e->wq);
		}
	}
}

bool nvsim_engine_controls_effective(void)
{
	return READ_ONCE(controls_effective);
}

bool nvsim_engine_schedule_off_effective(void)
{
	return READ_ONCE(controls_effective) && READ_ONCE(schedule_off_effective);
}

static s64 nvsim_now(void)
{
	return ktime_get_ns();
}

static void nvsim_engine_kick(struct nvsim_engine *e)
{
	lockdep_assert_held(&e->lock);
	WRITE_ONCE(e->kick, true);
	wake_up(&e->wq);
}

static s64 nvsim_tsg_slice_ns(const struct nvsim_tsg *tsg)
{
	return clamp_t(u64, tsg->timeslice_us, 1, NVSIM_MAX_TIMESLICE_US) * NSEC_PER_USEC;
}

/* Read GP_PUT from USERD; an index outside the ring RCs the channel. */
static void nvsim_chan_show(struct nvsim_channel *chan);

static bool nvsim_chan_refresh_put(struct nvsim_channel *chan)
{
	u32 put = nvsim_backing_read32(chan->userd, chan->userd_off + NVRM_USERD_GP_PUT);

	if (chan->errored)
		return false;
	if (put >= chan->entries) {
		chan->errored = true;
		chan->errors++;
		pr_info_ratelimited("gpu%u channel 0x%x (tsg %u): GP_PUT %u outside its %u-entry ring: RC\n",
				    chan->tsg->engine->gpu->index,
				    chan->handle, chan->tsg->id, put, chan->entries);
		return false;
	}
	if (put == chan->gp_put)
		return false;
	chan->gp_put = put;
	/* the host takes more entries of the channel it is executing at once */
	if (chan->in_entry && chan->tsg->engine->cur == chan->tsg)
		nvsim_chan_show(chan);
	return true;
}

static bool nvsim_chan_has_work(const struct nvsim_channel *chan)
{
	return chan->enabled && !chan->fifo_disabled && !chan->errored &&
	       (chan->in_entry || chan->gp_get != chan->gp_put);
}

static bool nvsim_tsg_has_work(const struct nvsim_tsg *tsg)
{
	const struct nvsim_channel *chan;

	list_for_each_entry(chan, &tsg->channels, tsg_node)
		if (nvsim_chan_has_work(chan))
			return true;
	return false;
}

/* The channel of @tsg that runs next: round robin from @tsg->next_chan. */
static struct nvsim_channel *nvsim_tsg_pick_chan(struct nvsim_tsg *tsg)
{
	struct nvsim_channel *start = tsg->next_chan, *chan;
	bool seen = !start;

	list_for_each_entry(chan, &tsg->channels, tsg_node) {
		if (chan == start)
			seen = true;
		if (seen && nvsim_chan_has_work(chan))
			return chan;
	}
	list_for_each_entry(chan, &tsg->channels, tsg_node) {
		if (chan == start)
			break;
		if (nvsim_chan_has_work(chan))
			return chan;
	}
	return NULL;
}

static bool nvsim_engine_others_runnable(struct nvsim_engine *e)
{
	struct nvsim_tsg *tsg;

	list_for_each_entry(tsg, &e->runlist, rl_node)
		if (tsg != e->cur && nvsim_tsg_has_work(tsg))
			return true;
	return false;
}

/* Give the engine to the first runlisted TSG with work; false when there is none. */
static bool nvsim_engine_pick(struct nvsim_engine *e)
{
	struct nvsim_tsg *tsg;

	list_for_each_entry(tsg, &e->runlist, rl_node) {
		struct nvsim_channel *chan = nvsim_tsg_pick_chan(tsg);

		if (!chan)
			continue;
		e->cur = tsg;
		e->cur_chan = chan;
		nvsim_trace(e, NVSIM_TR_ON, e->vt, 0, tsg);
		e->slice_start = e->vt;
		e->slice_end = e->vt + nvsim_tsg_slice_ns(tsg);
		e->preempt_at = NVSIM_NO_TIME;
		e->preempt_kills = false;
		return true;
	}
	return false;
}

/*
 * Take @e->cur off the engine: its running kernel (if any) keeps what is left of it. It goes to
 * the back of the runlist. @preempted: forced off (counted when it still had work).
 */
static void nvsim_engine_off(struct nvsim_engine *e, bool preempted)
{
	struct nvsim_tsg *tsg = e->cur;

	if (preempted && nvsim_tsg_has_work(tsg))
		tsg->preemptions++;
	nvsim_trace(e, NVSIM_TR_OFF, e->vt, 0, tsg);
	tsg->preempt_done = tsg->preempt_req;
	if (tsg->runlisted)
		list_move_tail(&tsg->rl_node, &e->runlist);
	e->cur = NULL;
	e->cur_chan = NULL;
	e->preempt_at = NVSIM_NO_TIME;
	e->preempt_kills = false;
	e->slice_end = NVSIM_NO_TIME;
	wake_up_all(&e->preempt_wq);
}

/*
 * A preempt that waited ctxsw_timeout_ms for a context it could not switch out: the host gives
 * up and kills the context, every channel of the group (Xid 109 CTX SWITCH TIMEOUT on an H200,
 * after which the process's next synchronize reported "unspecified launch failure").
 */
static void nvsim_engine_ctxsw_timeout(struct nvsim_engine *e)
{
	struct nvsim_channel *chan;

	list_for_each_entry(chan, &e->cur->channels, tsg_node) {
		chan->errored = true;
		chan->errors++;
	}
	pr_info_ratelimited("gpu%u tsg %u: context switch timeout (compute preemption %u): RC\n",
			    e->gpu->index, e->cur->id, e->cur->cilp_mode);
}

/* @e->vt reached @e->preempt_at: @e->cur leaves, killed first where the preempt timed out. */
static void nvsim_engine_preempt_point(struct nvsim_engine *e)
{
	if (e->preempt_kills)
		nvsim_engine_ctxsw_timeout(e);
	nvsim_engine_off(e, true);
}

/*
 * Ask for @e->cur to leave at its running kernel's next preemption point. With compute preemption
 * CILP that is the granularity; with WFI or CTA it is the kernel's end (nvsim's kernels are one
 * CTA each), as an H200 left a WFI context with a spinning kernel on the engine. @forced: a preempt
 * asked for (PREEMPT, FIFO_DISABLE_CHANNELS, a runlist or channel disable), which gives up after
 * ctxsw_timeout_ms and kills the context; the round robin's end of a slice waits for the kernel.
 */
static void nvsim_engine_request_preempt(struct nvsim_engine *e, bool forced)
{
	u64 gran = (u64)READ_ONCE(preempt_granularity_us) * NSEC_PER_USEC;
	u64 timeout = (u64)READ_ONCE(ctxsw_timeout_ms) * NSEC_PER_MSEC;
	struct nvsim_channel *chan = e->cur_chan;
	bool kills = false;
	s64 at = e->vt;
	u64 rem;

	if (!e->cur)
		return;
	if (chan->in_entry && e->cur->cilp_mode != NVRM_GR_COMPUTE_PREEMPT_CILP) {
		kills = forced && chan->remaining_ns > timeout;
		at += kills ? timeout : chan->remaining_ns;
	} else if (gran && chan->in_entry) {
		div64_u64_rem(chan->executed_ns, gran, &rem);
		if (rem)
			at += gran - rem;
	}
	if (at < e->preempt_at) {
		e->preempt_at = at;
		e->preempt_kills = kills;
	}
}

static void nvsim_chan_account(struct nvsim_engine *e, struct nvsim_channel *chan, u64 ns)
{
	chan->busy_ns += ns;
	chan->tsg->busy_ns += ns;
	chan->tsg->stats->busy_ns += ns;
	e->busy_ns += ns;
}

/*
 * What USERD's GP_GET says of @chan: past the entries the host has fetched. While an entry
 * executes, the host has taken it and gp_get_ahead more (as far as GP_PUT goes); GP_GET never
 * moves back, so a kernel's completion does not take back the entries fetched behind it.
 */
static u32 nvsim_chan_shown(struct nvsim_channel *chan)
{
	u32 mask = chan->entries - 1;
	u32 queued = (chan->gp_put - chan->gp_get) & mask;
	u32 fetched = READ_ONCE(gp_get_ahead);
	/* the executing entry and as many after it; none past GP_GET without fetch-ahead */
	u32 ahead = chan->in_entry && fetched ? min(1 + fetched, queued) : 0;
	u32 shown = (chan->gp_shown - chan->gp_get) & mask;

	if (shown > ahead && shown <= queued)
		ahead = shown;
	chan->gp_shown = (chan->gp_get + ahead) & mask;
	return chan->gp_shown;
}

/* Tell user space through USERD what the host has taken (at once, without the timer). */
static void nvsim_chan_show(struct nvsim_channel *chan)
{
	u32 before = chan->gp_shown;

	if (nvsim_chan_shown(chan) != before && READ_ONCE(userd_writeback) &&
	    !READ_ONCE(userd_writeback_us))
		nvsim_backing_write32(chan->userd, chan->userd_off + NVRM_USERD_GP_GET,
				      chan->gp_shown);
}

/* userd_writeback_us: @chan's GP_GET goes to USERD at the engine's next writeback. */
static void nvsim_chan_wb_later(struct nvsim_engine *e, struct nvsim_channel *chan)
{
	chan->wb_pending = true;
	if (e->wb_at != NVSIM_NO_TIME)
		return;
	e->wb_at = nvsim_now() + (s64)READ_ONCE(userd_writeback_us) * NSEC_PER_USEC;
	nvsim_engine_kick(e);	/* the thread's next deadline: a doorbell may have completed it */
}

/* The timer's writeback, when due: every channel whose GP_GET moved since, to its USERD. */
static void nvsim_engine_writeback(struct nvsim_engine *e, s64 now)
{
	struct nvsim_channel *chan;
	struct nvsim_tsg *tsg;

	if (e->wb_at == NVSIM_NO_TIME || (now < e->wb_at && READ_ONCE(userd_writeback_us)))
		return;
	e->wb_at = NVSIM_NO_TIME;
	list_for_each_entry(tsg, &e->tsgs, all_node)
		list_for_each_entry(chan, &tsg->channels, tsg_node) {
			if (!chan->wb_pending)
				continue;
			chan->wb_pending = false;
			if (READ_ONCE(userd_writeback))
				nvsim_backing_write32(chan->userd,
						      chan->userd_off + NVRM_USERD_GP_GET,
						      nvsim_chan_shown(chan));
		}
}

/* The entry at GP_GET is done: advance GP_GET and tell user space through USERD. */
static void nvsim_chan_complete(struct nvsim_engine *e, struct nvsim_channel *chan, bool kernel)
{
	chan->gp_get = (chan->gp_get + 1) & (chan->entries - 1);
	chan->in_entry = false;
	if (READ_ONCE(userd_writeback) && !READ_ONCE(userd_writeback_us))
		nvsim_chan_show(chan);
	else if (READ_ONCE(userd_writeback) && !chan->wb_pending)
		nvsim_chan_wb_later(e, chan);
	if (!kernel)
		return;
	chan->kernels++;
	chan->tsg->kernels++;
	chan->tsg->stats->kernels++;
	e->kernels++;
	if (chan->notify)
		e->notify_pending++;
}

/* A bad entry RCs the channel: it stops for good, GP_GET stays at the entry. */
static void nvsim_chan_rc(struct nvsim_engine *e, struct nvsim_channel *chan, u64 entry)
{
	chan->errored = true;
	chan->errors++;
	pr_info_ratelimited("gpu%u channel 0x%x (tsg %u): bad GPFIFO entry %#llx at GP_GET %u: RC\n",
			    e->gpu->index, chan->handle, chan->tsg->id, entry, chan->gp_get);
}

/*
 * Start the entry at GP_GET. Return: true when a kernel with time left is now executing; false
 * when the entry was consumed at once (NOP, semaphore release, zero-length kernel) or RC'd the
 * channel.
 */
static bool nvsim_chan_fetch(struct nvsim_engine *e, struct nvsim_channel *chan)
{
	u64 entry = nvsim_backing_read64(chan->ring, chan->ring_off +
					 (u64)chan->gp_get * NVRM_GP_ENTRY_SIZE);
	u64 sem;

	switch (NVSIM_GP_OPCODE(entry)) {
	case NVSIM_GP_OP_NOP:
		nvsim_chan_complete(e, chan, false);
		return false;
	case NVSIM_GP_OP_SEM_RELEASE:
		/* in the ring's memory object: a word that lies wholly inside it */
		sem = NVSIM_GP_SEM_OFFSET(entry);
		if (sem % sizeof(u32) || sem + sizeof(u32) > chan->ring->size) {
			nvsim_chan_rc(e, chan, entry);
			return false;
		}
		nvsim_backing_write32(chan->ring, sem, NVSIM_GP_SEM_PAYLOAD(entry));
		nvsim_chan_complete(e, chan, false);
		return false;
	case NVSIM_GP_OP_KERNEL:
	case NVSIM_GP_OP_KERNEL_NOTIFY:
		chan->in_entry = true;
		chan->remaining_ns = NVSIM_GP_DURATION_NS(entry);
		chan->executed_ns = 0;
		chan->notify = NVSIM_GP_OPCODE(entry) == NVSIM_GP_OP_KERNEL_NOTIFY;
		if (chan->remaining_ns) {
			nvsim_chan_show(chan);
			return true;
		}
		nvsim_chan_complete(e, chan, true);
		return false;
	default:
		nvsim_chan_rc(e, chan, entry);
		return false;
	}
}

/* At an entry boundary of @e->cur: a preemption point; else its next channel, or it leaves. */
static void nvsim_engine_next_chan(struct nvsim_engine *e)
{
	struct nvsim_channel *chan = e->cur_chan;

	if (!chan->in_entry)
		e->cur->next_chan = list_is_last(&chan->tsg_node, &e->cur->channels) ?
				    NULL : list_next_entry(chan, tsg_node);
	if (e->preempt_at != NVSIM_NO_TIME) {
		nvsim_engine_off(e, true);
		return;
	}
	if (e->vt >= e->slice_end) {
		if (nvsim_engine_others_runnable(e)) {
			nvsim_engine_off(e, true);
			return;
		}
		e->slice_start = e->vt;
		e->slice_end = e->vt + nvsim_tsg_slice_ns(e->cur);
	}
	chan = nvsim_tsg_pick_chan(e->cur);
	if (chan)
		e->cur_chan = chan;
	else
		nvsim_engine_off(e, false);
}

/**
 * nvsim_engine_run_until() - simulate the GPU up to @now
 * @e: the engine
 * @now: a ktime in ns, not before @e->vt
 *
 * Runs entries back to back, switches TSGs at timeslice ends and preemption points, and leaves
 * the engine either idle or executing a kernel with time left at @now.
 *
 * Context: under @e->lock; may sleep (USERD pages are allocated on first touch).
 */
static void nvsim_engine_run_until(struct nvsim_engine *e, s64 now)
{
	struct nvsim_channel *chan;
	s64 limit;
	u64 step;

	lockdep_assert_held(&e->lock);
	for (;;) {
		if (!e->cur && !nvsim_engine_pick(e)) {
			e->vt = max(e->vt, now);
			return;
		}
		chan = e->cur_chan;
		if (!chan->in_entry && !nvsim_chan_fetch(e, chan)) {
			nvsim_engine_next_chan(e);
			continue;
		}
		if (e->vt >= e->preempt_at) {
			nvsim_engine_preempt_point(e);
			continue;
		}
		if (e->vt >= now)
			return;
		limit = min3(now, e->vt + (s64)chan->remaining_ns, e->preempt_at);
		limit = max(min(limit, e->slice_end), e->vt);
		step = limit - e->vt;
		e->vt = limit;
		chan->remaining_ns -= step;
		chan->executed_ns += step;
		nvsim_chan_account(e, chan, step);
		if (!chan->remaining_ns) {
			nvsim_chan_complete(e, chan, true);
			nvsim_engine_next_chan(e);
		} else if (e->vt >= e->preempt_at) {
			nvsim_engine_preempt_point(e);
		} else if (e->vt >= e->slice_end) {
			if (nvsim_engine_others_runnable(e)) {
				/* The slice is over: the preemption point governs from here. */
				e->slice_end = NVSIM_NO_TIME;
				nvsim_engine_request_preempt(e, false);
			} else {
				e->slice_start = e->vt;
				e->slice_end = e->vt + nvsim_tsg_slice_ns(e->cur);
			}
		}
	}
}

/* Bring the engine up to the present; for RM paths and the doorbell. */
static void nvsim_engine_sync(struct nvsim_engine *e)
{
	nvsim_engine_run_until(e, max(nvsim_now(), e->vt));
	if (e->notify_pending)
		nvsim_engine_kick(e);	/* the thread delivers them */
}

/* doorbell_required=N: re-read GP_PUT of every channel of a runlisted TSG. */
static bool nvsim_engine_poll_puts(struct nvsim_engine *e)
{
	struct nvsim_channel *chan;
	struct nvsim_tsg *tsg;
	bool changed = false;

	list_for_each_entry(tsg, &e->runlist, rl_node)
		list_for_each_entry(chan, &tsg->channels, tsg_node)
			changed |= nvsim_chan_refresh_put(chan);
	return changed;
}

/* When the thread must next look: the next completion, preemption point or timeslice end. */
static s64 nvsim_engine_deadline(struct nvsim_engine *e, s64 now)
{
	s64 deadline = NVSIM_NO_TIME;

	if (e->cur) {
		deadline = min3(e->vt + (s64)e->cur_chan->remaining_ns, e->preempt_at,
				e->slice_end);
	}
	if (!READ_ONCE(doorbell_required) && !list_empty(&e->runlist))
		deadline = min(deadline, e->cur ? e->slice_end : now + NVSIM_POLL_NS);
	return deadline;
}

static bool nvsim_engine_woken(struct nvsim_engine *e)
{
	return READ_ONCE(e->kick) || kthread_should_stop();
}

/*
 * Sleep until @deadline (ktime ns) or a kick. Interruptible, so that an idle engine sleeping for
 * hours is not taken for a hung task; kthreads get no signals.
 */
static void nvsim_engine_wait(struct nvsim_engine *e, s64 deadline)
{
	s64 left;

	if (deadline == NVSIM_NO_TIME) {
		wait_event_interruptible(e->wq, nvsim_engine_woken(e));
		return;
	}
	left = deadline - nvsim_now();
	if (left > 0)
		wait_event_interruptible_hrtimeout(e->wq, nvsim_engine_woken(e),
						   ns_to_ktime(left));
}

static int nvsim_engine_thread(void *data)
{
	struct nvsim_engine *e = data;
	unsigned int notify;
	s64 now, deadline;

	while (!kthread_should_stop()) {
		mutex_lock(&e->lock);
		WRITE_ONCE(e->kick, false);
		now = max(nvsim_now(), e->vt);
		nvsim_engine_run_until(e, now);
		if (!READ_ONCE(doorbell_required) && nvsim_engine_poll_puts(e))
			nvsim_engine_run_until(e, now);
		nvsim_engine_writeback(e, now);
		deadline = min(nvsim_engine_deadline(e, now), e->wb_at);
		notify = e->notify_pending;
		e->notify_pending = 0;
		mutex_unlock(&e->lock);

		while (notify--)
			nvsim_event_notify(e->gpu, NVRM_NV2080_NOTIFIERS_GRAPHICS);

		nvsim_engine_wait(e, deadline);
	}
	return 0;
}

/**
 * nvsim_engine_doorbell() - a work-submit token was written to a usermode doorbell page
 * @gpu: the GPU whose doorbell it is
 * @token: the token read from the page; 0 when an earlier pass already took it
 * @tgid: the process whose store to the page was seen
 * @at: when the store was seen (the fault; ktime ns), for the trace
 *
 * The channel with that token reads its GP_PUT from USERD and the engine runs what is new. So do
 * the channels of every channel group of @tgid: nvsim sees doorbell stores through write faults,
 * and two stores between a fault and the re-protect are read as one ring with the later token. A
 * real doorbell write does nothing but make the engine look at the channel's GP_PUT, so looking at
 * GP_PUT of the process's other channels as well only ever makes work visible that the process
 * published (USERD is the process's memory) and, in the coalesced case, rang for. The difference
 * from hardware: a channel of that process whose GP_PUT was written but never rung is seen at the
 * process's next ring of any channel. Unknown tokens are ignored, as the hardware ignores them.
 *
 * Context: process context, no nvsim lock held; takes the engine lock.
 */
void nvsim_engine_doorbell(struct nvsim_gpu *gpu, u32 token, pid_t tgid, s64 at)
{
	struct nvsim_engine *e = gpu->engine;
	struct nvsim_channel *chan = NULL;
	struct nvsim_tsg *tsg;

	if (!e)
		return;
	mutex_lock(&e->lock);
	nvsim_trace(e, NVSIM_TR_RING, at, tgid, NULL);
	if (token) {
		chan = xa_load(&e->tokens, token);
		if (!chan) {
			pr_debug("gpu%u: doorbell with unknown token %u\n", gpu->index, token);
			goto out;
		}
	}
	nvsim_engine_sync(e);
	if (chan)
		nvsim_chan_refresh_put(chan);
	list_for_each_entry(tsg, &e->tsgs, all_node) {
		if (!tgid || tsg->tgid != tgid)
			continue;
		list_for_each_entry(chan, &tsg->channels, tsg_node)
			nvsim_chan_refresh_put(chan);
	}
	nvsim_trace(e, NVSIM_TR_SEEN, e->vt, tgid, NULL);
	nvsim_engine_kick(e);
out:
	mutex_unlock(&e->lock);
}

/* The per-process totals of @tgid, created on first use. Under the engine lock. */
static struct nvsim_proc_stats *nvsim_engine_proc_stats(struct nvsim_engine *e, pid_t tgid)
{
	struct nvsim_proc_stats *ps;

	lockdep_assert_held(&e->lock);
	list_for_each_entry(ps, &e->procs, node)
		if (ps->tgid == tgid)
			return ps;
	ps = kzalloc(sizeof(*ps), GFP_KERNEL);
	if (!ps)
		return NULL;
	ps->tgid = tgid;
	list_add_tail(&ps->node, &e->procs);
	return ps;
}

/**
 * nvsim_engine_add_tsg() - a new channel group (not on the runlist yet)
 * @tsg: with @tsg->engine set
 * @tgid: the process it is accounted to
 *
 * Context: under nvsim_rm_lock; takes the engine lock.
 * Return: 0 or -ENOMEM.
 */
int nvsim_engine_add_tsg(struct nvsim_tsg *tsg, pid_t tgid)
{
	struct nvsim_engine *e = tsg->engine;
	int ret = 0;

	INIT_LIST_HEAD(&tsg->channels);
	INIT_LIST_HEAD(&tsg->rl_node);
	tsg->timeslice_us = READ_ONCE(default_timeslice_us);
	tsg->timeslice_us_reported = tsg->timeslice_us;
	tsg->interleave = NVRM_INTERLEAVE_LEVEL_MEDIUM;
	tsg->cilp_mode = NVRM_GR_COMPUTE_PREEMPT_WFI;
	mutex_lock(&e->lock);
	tsg->stats = nvsim_engine_proc_stats(e, tgid);
	if (tsg->stats) {
		tsg->id = e->next_tsg_id++;
		list_add_tail(&tsg->all_node, &e->tsgs);
	} else {
		ret = -ENOMEM;
	}
	mutex_unlock(&e->lock);
	return ret;
}

/**
 * nvsim_engine_remove_tsg() - a channel group is freed (its channels went before it)
 * @tsg: the TSG
 *
 * Context: under nvsim_rm_lock; takes the engine lock.
 */
void nvsim_engine_remove_tsg(struct nvsim_tsg *tsg)
{
	struct nvsim_engine *e = tsg->engine;

	mutex_lock(&e->lock);
	nvsim_engine_sync(e);
	WARN_ON_ONCE(!list_empty(&tsg->channels));
	if (e->cur == tsg)
		nvsim_engine_off(e, false);
	list_del(&tsg->rl_node);
	list_del(&tsg->all_node);
	tsg->preempt_done = tsg->preempt_req;
	wake_up_all(&e->preempt_wq);
	mutex_unlock(&e->lock);
}

/**
 * nvsim_engine_add_channel() - a new channel joins its TSG, with a new work-submit token
 * @chan: with @chan->tsg, ring and USERD set
 *
 * Context: under nvsim_rm_lock; takes the engine lock.
 * Return: 0; -ENOSPC when the GPU's channel ids (channel_ids) are all taken; another negative
 * errno when no token can be allocated.
 */
int nvsim_engine_add_channel(struct nvsim_channel *chan)
{
	struct nvsim_engine *e = chan->tsg->engine;
	int ret = -ENOSPC;

	mutex_lock(&e->lock);
	if (e->nchannels < READ_ONCE(channel_ids))
		ret = xa_alloc_cyclic(&e->tokens, &chan->token, chan, XA_LIMIT(1, U32_MAX),
				      &e->next_token, GFP_KERNEL);
	if (ret >= 0) {
		ret = 0;
		chan->enabled = true;
		list_add_tail(&chan->tsg_node, &chan->tsg->channels);
		chan->tsg->nchannels++;
		e->nchannels++;
	}
	mutex_unlock(&e->lock);
	return ret;
}

/**
 * nvsim_engine_remove_channel() - a channel is freed: its work stops at once
 * @chan: the channel
 *
 * A kernel it was executing is abandoned (the time it ran stays counted). Its channel id stays
 * taken until nvsim_engine_put_channel_id(): UVM may retain it past the channel.
 *
 * Context: under nvsim_rm_lock; takes the engine lock.
 */
void nvsim_engine_remove_channel(struct nvsim_channel *chan)
{
	struct nvsim_tsg *tsg = chan->tsg;
	struct nvsim_engine *e = tsg->engine;

	mutex_lock(&e->lock);
	nvsim_engine_sync(e);
	if (e->cur_chan == chan)
		nvsim_engine_off(e, false);
	if (tsg->next_chan == chan)
		tsg->next_chan = NULL;
	list_del(&chan->tsg_node);
	tsg->nchannels--;
	xa_erase(&e->tokens, chan->token);
	nvsim_engine_kick(e);
	mutex_unlock(&e->lock);
}

/**
 * nvsim_engine_put_channel_id() - the last holder of a channel id lets it go
 * @e: the engine of the channel's GPU
 *
 * Context: under nvsim_rm_lock; takes the engine lock.
 */
void nvsim_engine_put_channel_id(struct nvsim_engine *e)
{
	mutex_lock(&e->lock);
	e->nchannels--;
	mutex_unlock(&e->lock);
}

/**
 * nvsim_engine_schedule() - GPFIFO_SCHEDULE: a TSG joins or leaves the runlist
 * @tsg: the TSG
 * @enable: join (its channels are enabled too, as the header says); leave (preempted off at
 *	the granularity if it is running)
 *
 * Context: under nvsim_rm_lock; takes the engine lock.
 */
void nvsim_engine_schedule(struct nvsim_tsg *tsg, bool enable)
{
	struct nvsim_engine *e = tsg->engine;
	struct nvsim_channel *chan;

	mutex_lock(&e->lock);
	nvsim_engine_sync(e);
	if (enable) {
		list_for_each_entry(chan, &tsg->channels, tsg_node)
			chan->enabled = true;
		if (!tsg->runlisted) {
			list_add_tail(&tsg->rl_node, &e->runlist);
			nvsim_trace(e, NVSIM_TR_RL_ADD, e->vt, 0, tsg);
		}
		tsg->runlisted = true;
	} else if (tsg->runlisted) {
		nvsim_trace(e, NVSIM_TR_RL_DEL, e->vt, 0, tsg);
		list_del_init(&tsg->rl_node);
		tsg->runlisted = false;
		if (e->cur == tsg)
			nvsim_engine_request_preempt(e, true);
	}
	nvsim_engine_kick(e);
	mutex_unlock(&e->lock);
}

/**
 * nvsim_engine_channel_enable() - make a channel schedulable or not
 * @chan: the channel
 * @enable: schedulable
 * @preempt: when disabling: if its kernel is executing, preempt its TSG off at the granularity
 *	(without, the executing entry completes first)
 *
 * Context: under nvsim_rm_lock; takes the engine lock.
 */
void nvsim_engine_channel_enable(struct nvsim_channel *chan, bool enable, bool preempt)
{
	struct nvsim_engine *e = chan->tsg->engine;

	mutex_lock(&e->lock);
	nvsim_engine_sync(e);
	chan->enabled = enable;
	if (!enable && preempt && e->cur_chan == chan)
		nvsim_engine_request_preempt(e, true);
	nvsim_engine_kick(e);
	mutex_unlock(&e->lock);
}

/**
 * nvsim_engine_fifo_call() - trace a FIFO_DISABLE_CHANNELS call that passed its checks
 * @e: the engine of the GPU it was issued on
 * @disable: it disables (else enables)
 * @channels: how many channels it listed (at most 64)
 *
 * Context: under nvsim_rm_lock; takes the engine lock.
 */
void nvsim_engine_fifo_call(struct nvsim_engine *e, bool disable, u32 channels)
{
	struct nvsim_trace_ent *t;

	mutex_lock(&e->lock);
	t = nvsim_trace(e, disable ? NVSIM_TR_FIFO_DISABLE : NVSIM_TR_FIFO_ENABLE, ktime_get_ns(),
			current->tgid, NULL);
	t->channels = min_t(u32, channels, U8_MAX);
	mutex_unlock(&e->lock);
}

/**
 * nvsim_engine_channel_fifo_disable() - FIFO_DISABLE_CHANNELS on one channel
 * @chan: the channel
 * @disable: disable it, until enabled this way again (a channel GPFIFO_SCHEDULE(0) disabled stays
 *	so: the two are kept apart)
 * @preempt: when disabling: if its kernel is executing, preempt its TSG off at the granularity
 *	(without, the executing entry completes first)
 *
 * Context: under nvsim_rm_lock; takes the engine lock.
 * Return: 0, or where its TSG was asked to leave the engine, the preempt to wait for with
 *	nvsim_engine_wait_off() (the call returns once the context is off, as on an H200).
 */
u64 nvsim_engine_channel_fifo_disable(struct nvsim_channel *chan, bool disable, bool preempt)
{
	struct nvsim_engine *e = chan->tsg->engine;
	u64 seq = 0;

	mutex_lock(&e->lock);
	nvsim_engine_sync(e);
	chan->fifo_disabled = disable;
	if (disable && preempt && e->cur_chan == chan) {
		nvsim_engine_request_preempt(e, true);
		seq = ++chan->tsg->preempt_req;
	}
	nvsim_engine_kick(e);
	mutex_unlock(&e->lock);
	return seq;
}

/**
 * nvsim_engine_wait_off() - wait for a preempt nvsim_engine_channel_fifo_disable() asked for
 * @tsg: the TSG
 * @seq: what it returned
 *
 * Bounded by ctxsw_timeout_ms, after which the engine has killed the context anyway (and a second
 * more, for the engine thread to get there).
 *
 * Context: under nvsim_rm_lock, which keeps @tsg alive; sleeps.
 */
void nvsim_engine_wait_off(struct nvsim_tsg *tsg, u64 seq)
{
	unsigned long timeout = msecs_to_jiffies(READ_ONCE(ctxsw_timeout_ms) + MSEC_PER_SEC);

	wait_event_timeout(tsg->engine->preempt_wq, READ_ONCE(tsg->preempt_done) >= seq, timeout);
}

/**
 * nvsim_engine_preempt() - PREEMPT: take a TSG off the engine; it goes to the back of the runlist
 * @tsg: the TSG
 * @wait: return only once it is off
 * @timeout_us: how long to wait at most
 *
 * Context: under nvsim_rm_lock (which keeps @tsg alive while waiting); takes the engine lock.
 * Return: NV_OK, or NV_ERR_TIMEOUT when @wait and it is still on after @timeout_us.
 */
u32 nvsim_engine_preempt(struct nvsim_tsg *tsg, bool wait, u32 timeout_us)
{
	struct nvsim_engine *e = tsg->engine;
	u64 seq;

	mutex_lock(&e->lock);
	nvsim_engine_sync(e);
	seq = ++tsg->preempt_req;
	if (e->cur == tsg) {
		nvsim_engine_request_preempt(e, true);
	} else {
		tsg->preempt_done = seq;
		if (tsg->runlisted)
			list_move_tail(&tsg->rl_node, &e->runlist);
	}
	nvsim_engine_kick(e);
	mutex_unlock(&e->lock);
	if (!wait)
		return NVRM_OK;
	if (!wait_event_timeout(e->preempt_wq, READ_ONCE(tsg->preempt_done) >= seq,
				usecs_to_jiffies(timeout_us)))
		return NVRM_ERR_TIMEOUT;
	return NVRM_OK;
}

/**
 * nvsim_engine_set_timeslice() - SET_TIMESLICE: takes effect at once, a running TSG may be
 *	forced off (its current slice is measured against the new length)
 * @tsg: the TSG
 * @us: the timeslice in microseconds
 *
 * Context: under nvsim_rm_lock; takes the engine lock.
 */
void nvsim_engine_set_timeslice(struct nvsim_tsg *tsg, u64 us)
{
	struct nvsim_engine *e = tsg->engine;

	mutex_lock(&e->lock);
	nvsim_engine_sync(e);
	tsg->timeslice_us = us;
	if (e->cur == tsg)
		e->slice_end = e->slice_start + nvsim_tsg_slice_ns(tsg);
	nvsim_engine_kick(e);
	mutex_unlock(&e->lock);
}

/**
 * nvsim_engine_set_compute_preemption() - GR_SET_CTXSW_PREEMPTION_MODE's compute mode
 * @tsg: the channel's group (its context)
 * @mode: NVRM_GR_COMPUTE_PREEMPT_*
 *
 * Governs preempts asked for from now on (nvsim_engine_request_preempt()).
 *
 * Context: under nvsim_rm_lock; takes the engine lock.
 */
void nvsim_engine_set_compute_preemption(struct nvsim_tsg *tsg, u32 mode)
{
	struct nvsim_engine *e = tsg->engine;

	mutex_lock(&e->lock);
	nvsim_engine_sync(e);
	WRITE_ONCE(tsg->cilp_mode, mode);
	mutex_unlock(&e->lock);
}

/*
 * /proc/driver/nvsim/gpu<N>/engine: a header line of key-value pairs for the GPU, one "tsg" line
 * per channel group and one "chan" line per channel (README.md, "Engine").
 */
static int nvsim_engine_show(struct seq_file *m, void *v)
{
	struct nvsim_engine *e = m->private;
	struct nvsim_channel *chan;
	struct nvsim_tsg *tsg;

	mutex_lock(&e->lock);
	nvsim_engine_sync(e);
	seq_printf(m, "gpu %u busy_ns %llu kernels %llu running %d\n", e->gpu->index, e->busy_ns,
		   e->kernels, e->cur ? (int)e->cur->id : -1);
	list_for_each_entry(tsg, &e->tsgs, all_node)
		seq_printf(m, "tsg %u pid %d client 0x%x handle 0x%x runlist %d timeslice_us %llu busy_ns %llu kernels %llu preemptions %llu channels %u interleave %u compute_preemption %u realtime %d\n",
			   tsg->id, tsg->tgid, tsg->hclient, tsg->handle, tsg->runlisted,
			   tsg->timeslice_us, tsg->busy_ns, tsg->kernels, tsg->preemptions,
			   tsg->nchannels, READ_ONCE(tsg->interleave), tsg->cilp_mode,
			   READ_ONCE(tsg->realtime));
	list_for_each_entry(tsg, &e->tsgs, all_node)
		list_for_each_entry(chan, &tsg->channels, tsg_node)
			seq_printf(m, "chan %u tsg %u handle 0x%x gp_get %u gp_put %u enabled %d errored %d busy_ns %llu kernels %llu errors %llu\n",
				   chan->token, tsg->id, chan->handle, chan->gp_get, chan->gp_put,
				   chan->enabled && !chan->fifo_disabled, chan->errored,
				   chan->busy_ns, chan->kernels,
				   chan->errors);
	mutex_unlock(&e->lock);
	return 0;
}

/* /proc/driver/nvsim/gpu<N>/busy: GPU total, then one line per process that ever ran work. */
static int nvsim_engine_busy_show(struct seq_file *m, void *v)
{
	struct nvsim_engine *e = m->private;
	struct nvsim_proc_stats *ps;

	mutex_lock(&e->lock);
	nvsim_engine_sync(e);
	seq_printf(m, "gpu_busy_ns %llu\n", e->busy_ns);
	list_for_each_entry(ps, &e->procs, node)
		if (ps->kernels || ps->busy_ns)
			seq_printf(m, "pid %d busy_ns %llu kernels %llu\n", ps->tgid, ps->busy_ns,
				   ps->kernels);
	mutex_unlock(&e->lock);
	return 0;
}

/*
 * /proc/driver/nvsim/gpu<N>/trace: a header line, then the events kept, oldest first, one per
 * line (README.md, "Trace"). Reading does not consume them.
 */
static int nvsim_engine_trace_show(struct seq_file *m, void *v)
{
	struct nvsim_engine *e = m->private;
	struct nvsim_trace_ent *t;
	u64 seq, first;

	mutex_lock(&e->lock);
	nvsim_engine_sync(e);
	first = e->trace_seq > NVSIM_TRACE_LEN ? e->trace_seq - NVSIM_TRACE_LEN : 0;
	seq_printf(m, "trace %u next_seq %llu first_seq %llu\n", NVSIM_TRACE_LEN, e->trace_seq,
		   first);
	for (seq = first; seq < e->trace_seq; seq++) {
		t = &e->trace[seq & (NVSIM_TRACE_LEN - 1)];
		seq_printf(m, "%llu %lld %s pid %d tsg %d", seq, t->ns,
			   nvsim_trace_names[t->kind], t->tgid, t->tsg);
		if (t->kind == NVSIM_TR_FIFO_DISABLE || t->kind == NVSIM_TR_FIFO_ENABLE)
			seq_printf(m, " channels %u", t->channels);
		seq_putc(m, '\n');
	}
	mutex_unlock(&e->lock);
	return 0;
}

/**
 * nvsim_engine_init() - start a GPU's engine and its /proc files
 * @gpu: the GPU; @gpu->proc is its /proc/driver/nvsim/gpu<N> directory
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int nvsim_engine_init(struct nvsim_gpu *gpu)
{
	struct nvsim_engine *e;
	int ret;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->trace = kvcalloc(NVSIM_TRACE_LEN, sizeof(*e->trace), GFP_KERNEL);
	if (!e->trace) {
		kfree(e);
		return -ENOMEM;
	}
	e->gpu = gpu;
	init_waitqueue_head(&e->wq);
	init_waitqueue_head(&e->preempt_wq);
	mutex_init(&e->lock);
	INIT_LIST_HEAD(&e->tsgs);
	INIT_LIST_HEAD(&e->runlist);
	INIT_LIST_HEAD(&e->procs);
	xa_init_flags(&e->tokens, XA_FLAGS_ALLOC1);
	e->vt = nvsim_now();
	e->slice_end = NVSIM_NO_TIME;
	e->preempt_at = NVSIM_NO_TIME;
	e->wb_at = NVSIM_NO_TIME;

	e->proc = proc_create_single_data("engine", 0444, gpu->proc, nvsim_engine_show, e);
	e->proc_busy = proc_create_single_data("busy", 0444, gpu->proc, nvsim_engine_busy_show, e);
	e->proc_trace = proc_create_single_data("trace", 0444, gpu->proc, nvsim_engine_trace_show,
						e);
	if (!e->proc || !e->proc_busy || !e->proc_trace) {
		ret = -ENOMEM;
		goto err_remove_proc;
	}
	e->thread = kthread_run(nvsim_engine_thread, e, "nvsim-engine/%u", gpu->index);
	if (IS_ERR(e->thread)) {
		ret = PTR_ERR(e->thread);
		goto err_remove_proc;
	}
	gpu->engine = e;
	return 0;

err_remove_proc:
	proc_remove(e->proc_trace);
	proc_remove(e->proc_busy);
	proc_remove(e->proc);
	kvfree(e->trace);
	kfree(e);
	return ret;
}

/**
 * nvsim_engine_exit() - stop a GPU's engine (every client is gone by then)
 * @gpu: the GPU
 *
 * Context: module exit, or init unwinding.
 */
void nvsim_engine_exit(struct nvsim_gpu *gpu)
{
	struct nvsim_engine *e = gpu->engine;
	struct nvsim_proc_stats *ps, *tmp;

	if (!e)
		return;
	proc_remove(e->proc_trace);
	proc_remove(e->proc_busy);
	proc_remove(e->proc);
	kthread_stop(e->thread);
	WARN_ON(!list_empty(&e->tsgs));
	list_for_each_entry_safe(ps, tmp, &e->procs, node)
		kfree(ps);
	xa_destroy(&e->tokens);
	mutex_destroy(&e->lock);
	gpu->engine = NULL;
	kvfree(e->trace);
	kfree(e);
}
