// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: the compute scheduler of each physical GPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/file.h>
#include <linux/hrtimer.h>
#include <linux/io.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/wait.h>

#include "qgpu_internal.h"
#include "qgpu_kclient.h"
#include "qgpu_netlink.h"
#include "qgpu_rmtrack.h"
#include "qgpu_sched.h"
#include "qgpu_sched_core.h"

/**
 * DOC: compute scheduling
 *
 * Per GPU a kthread (``qgpu-sched/N``) decides which instances may run (RUN) and which are held
 * (HOLD), with the share arithmetic of qgpu_sched_core.c, at each window or period end, and at
 * once when an idle instance submits work or a knob changes. While the engine's own round robin
 * meets the policy (relaxed, see qgpu_sched_core.c) it holds nothing but what the classes hold
 * and looks again only every QGPU_SC_RELAXED_NS, or at once when a ring, a knob, a group joining
 * the runlist or a tenant's own timeslice may change that. The thread is real-time (the lowest
 * FIFO priority, like threaded interrupt handlers), so that busy tenant processes cannot delay a
 * decision, above all the hold of offline work when online work arrives. It acts in two places:
 *
 * - Channels: qgpu remembers every channel a tenant allocates through an instance's ctl node
 *   (until its tracker node's release). HOLD is NV2080 FIFO_DISABLE_CHANNELS(disable) listing
 *   them, issued by qgpu's kernel client on its own subdevice of the GPU (RM takes any client's
 *   channels in the list), 64 a call whatever instances they belong to (qgpu_sched_batch_add());
 *   RUN is FIFO_DISABLE_CHANNELS(enable) on those the tenant
 *   did not disable itself (qgpu_disable.c keeps a tenant to its own channels and apart from
 *   qgpu's holds). A channel made while its instance is held is held at once, and so is one whose
 *   own GPFIFO_SCHEDULE the tenant issued while held. Measured on an H200 with GSP firmware
 *   580.159.04 (session 17): FIFO_DISABLE_CHANNELS stops a spinning kernel and a stream of
 *   kernels at once and resumes them where they were, the group's GPFIFO_SCHEDULE(1) does not
 *   undo it, and a process that exits while disabled is torn down cleanly; whereas a group's
 *   GPFIFO_SCHEDULE(0), what qgpu held with before, returns NV_OK and changes nothing.
 * - Channel groups: every KEPLER_CHANNEL_GROUP_A a tenant allocates is duplicated into qgpu's
 *   kernel RM client (under qgpu's device of that GPU, the parent RM requires of a channel
 *   group); the duplicate is released exactly when RM frees the tenant's channel group (its
 *   tracker node's release). SET_TIMESLICE applies the GPU's ``timeslice_us`` to every
 *   duplicate, and again after each of a tenant's own SET_TIMESLICE on the group.
 * - Doorbells: a mapping of a usermode object (the doorbell page) made through a GPU node has
 *   its fault and pfn_mkwrite handlers wrapped (qgpu_vma.c). A ring from a held instance sleeps
 *   (killable) until it may run; every ring tells the scheduler the instance has work.
 *
 * Whether the controls work on every GPU and firmware is not known (nvsim's controls_effective=N
 * models a GPU where none does); with controls inert only the doorbell gate acts, and work
 * queued before the gate closed still runs.
 * So qgpu watches: every channel whose USERD is a tenant's memory object has that USERD mapped
 * into the kernel (a duplicate of the memory in qgpu's kernel client, NV04_MAP_MEMORY), and at
 * each decision (under burst-share and best-effort, at most every QGPU_SCHED_SAMPLE_NS unless
 * something changed) the thread reads GP_GET and GP_PUT: which groups have work, for whether the
 * round robin meets the policy. Held groups whose GP_GET still moves after
 * QGPU_SCHED_HOLD_GRACE_NS, QGPU_SCHED_HELD_MOVES times within a second, show the controls inert
 * on this GPU (``controls`` in sysfs),
 * until the GPU has no channel group left (firmware does not change while groups live).
 * While inert, fixed-share charges each instance its busy groups' part of the engine's round
 * robin and gates its doorbell by budget (qgpu_sched_core.c). Work counts as known to the engine
 * once a ring that passed the gate saw it in GP_PUT (a ring held at the gate has its GP_PUT
 * written but not seen), or once GP_GET moves past it.
 *
 * Locking: qgpu_sched_gpu.mutex serialises decisions and the controls that carry them out, and
 * protects every instance's channel-group list, applied state and its channels' tenant_disabled.
 * qgpu_sched_gpu.lock (a spinlock, taken in fault handlers) protects the share state (struct
 * qgpu_sc and each instance's struct qgpu_sc_inst), the instance array, each instance's gate and
 * channel lists.
 * Lock order:
 * a tracker's lock, then the mutex, then the spinlock or the kernel client's lock; qgpu_lock
 * is never held with either (knob writes take it alone, then the spinlock).
 */

#define QGPU_SCHED_IDLE_NS	NSEC_PER_SEC	/* nothing active: wake this rarely */
#define QGPU_SCHED_SLACK_NS	(20 * NSEC_PER_USEC)
/*
 * a held group may still finish what is on the engine: a preemption point, a late control, an
 * engine that writes GP_GET late (nvsim under TCG: up to 2.5 ms measured)
 */
#define QGPU_SCHED_HOLD_GRACE_NS (5 * NSEC_PER_MSEC)
/* ...and this many held groups seen to move within a second show the controls inert */
#define QGPU_SCHED_HELD_MOVES	3
/*
 * Between decisions that only move a window on (not kicked, not relaxed, not fixed-share, whose
 * hold grace and inert estimate want every sample), USERD is read at most this often: there it
 * only tells whether the round robin has come to meet the guarantees, and that can wait a little.
 */
#define QGPU_SCHED_SAMPLE_NS	(10 * NSEC_PER_MSEC)
/* a held instance's known work that has not moved this long is not on the engine */
#define QGPU_SCHED_STILL_NS	(50 * NSEC_PER_MSEC)
#define QGPU_TIMESLICE_MAX_US	60000000u	/* the engine's clamp: 60 s */

/*
 * Whether the GPU writes GP_GET back to USERD. From VOLTA_CHANNEL_GPFIFO_A on the hardware does
 * so only on a timer, for compatibility, and from BLACKWELL_CHANNEL_GPFIFO_A on not at all
 * (user space tracks its channels with semaphore releases; kmod/nvsim/README.md, "USERD and
 * entries"). Without it the samples see no progress: held groups that keep running cannot show
 * the controls inert. STILL is told from a channel whose GP_PUT went a whole ring round while no
 * GP_GET on the GPU moved: the GPU must have taken those entries. Both are read from tenant
 * memory and only tell the operator (the ``gp_get`` attribute); MOVES wins.
 */
enum qgpu_sched_gp_get {
	QGPU_GP_GET_UNKNOWN,
	QGPU_GP_GET_MOVES,
	QGPU_GP_GET_STILL,
};

/**
 * struct qgpu_sched_gpu - one GPU's scheduler
 * @gpu: the GPU
 * @mutex: see DOC: compute scheduling
 * @lock: see DOC: compute scheduling
 * @sc: the share state (under @lock)
 * @insts: the live instances (struct qgpu_sched_inst.link), under @mutex
 * @v: the same, as the array the share arithmetic takes, under @lock
 * @n: its length
 * @thread: the kthread
 * @kick: a decision is wanted now
 * @timeslice_us: the timeslice_us knob (written under @mutex)
 * @sampled_at: when the channels' USERD was last read (under @lock)
 * @held_moves: held groups seen to move since @held_moves_since (under @lock)
 * @held_moves_since: start of the second @held_moves counts (under @lock)
 * @rotate: where in @insts the next release of several instances starts (under @mutex)
 * @gp_get: whether this GPU writes GP_GET back to USERD, as far as seen (written under @lock,
 *	read without it)
 * @batch: the FIFO_DISABLE_CHANNELS list being issued (under @mutex)
 * @retry: the part of @batch issued again when RM refused it (under @mutex)
 * @control_ns: how long this thread's FIFO_DISABLE_CHANNELS calls took, each averaged in with a
 *	weight of 1/4 (the ``control_us`` attribute); 0 before the first (written under @mutex,
 *	read without it)
 */
struct qgpu_sched_gpu {
	struct qgpu_gpu *gpu;
	struct mutex mutex;	/* see DOC */
	spinlock_t lock;	/* see DOC */
	struct qgpu_sc sc;
	struct list_head insts;
	struct qgpu_sc_inst *v[QGPU_MAX_INSTANCES_PER_GPU];
	unsigned int n;
	struct task_struct *thread;
	bool kick;
	u32 timeslice_us;
	u64 sampled_at;
	u32 held_moves;
	u64 held_moves_since;
	unsigned int rotate;
	enum qgpu_sched_gp_get gp_get;
	struct nvrm_fifo_disable_channels batch;
	struct nvrm_fifo_disable_channels retry;
	u64 control_ns;
};

/**
 * struct qgpu_sched_inst - one instance's scheduling state
 * @sc: its share state (under the GPU's lock)
 * @inst: the instance (this lives as long as it does)
 * @sg: its GPU's scheduler
 * @link: entry in @sg->insts while live
 * @tsgs: its channel groups (struct qgpu_sched_tsg.link), under @sg->mutex
 * @chans: its channels whose USERD qgpu reads (struct qgpu_sched_chan.link), under @sg->lock
 * @all_chans: all its channels, USERD read or not (struct qgpu_sched_chan.all), under @sg->lock
 * @gate: rings of a held instance wait here
 * @may_run: its doorbell is open (under @sg->lock)
 * @removed: the instance was removed: no more gating (under @sg->lock)
 * @applied: what its channels were last told: RUN (true) or HOLD (under @sg->mutex)
 * @opening: released in this decision; its doorbell opens once the enable batch went out (under
 *	@sg->mutex)
 * @holding: held in this decision, once the disable batch went out (under @sg->mutex)
 * @want: the latest decision, copied out of @sc under @sg->lock for the thread
 * @was_active: whether it was active at that decision (under @sg->mutex)
 * @held_at: when its groups were last held, 0 while they may run (under @sg->mutex)
 * @preemptions: times it was held with work (under @sg->mutex)
 * @queued: the last sample found work queued on a group of its that the tenant scheduled, or on
 *	a channel of its own implicit group (under @sg->lock)
 */
struct qgpu_sched_inst {
	struct qgpu_sc_inst sc;
	struct qgpu_instance *inst;
	struct qgpu_sched_gpu *sg;
	struct list_head link;
	struct list_head tsgs;
	struct list_head chans;
	struct list_head all_chans;
	wait_queue_head_t gate;
	bool may_run;
	bool removed;
	bool applied;
	bool opening;
	bool holding;
	bool want;
	bool was_active;
	u64 held_at;
	u64 preemptions;
	bool queued;
};

/**
 * struct qgpu_sched_tsg - a tenant's channel group, as qgpu's duplicate of it
 * @link: entry in the instance's @tsgs, under the GPU's mutex
 * @si: the instance
 * @group: the group's charge, which the mirror nodes of the group and of its copies hold
 *	(qgpu_mem_hold()): how a copy finds the group (qgpu_sched_rm_copy()); compared, never read
 * @refs: the mirror nodes that name the group, its own and its copies', under the GPU's mutex:
 *	RM frees the group with the last of its handles, and qgpu's duplicate goes then
 * @hdup: the duplicate's handle in qgpu's kernel client
 * @tenant_enabled: the tenant scheduled it (GPFIFO_SCHEDULE(1) on it or one of its channels)
 * @tuned: the tenant set its interleave level itself (or a timeslice qgpu could not set back):
 *	its turns in the engine's round robin may not be the same length as other groups'
 * @busy: a channel of it had work over the last sample (scratch of the sample)
 * @whole: a channel of it had work known to the engine both when the last sample started and
 *	when it ended: busy all of it, where a group that is only @busy ran dry or got work within
 *	it (scratch of the sample)
 * @moved: a channel's GP_GET moved over the last sample (scratch of the sample)
 * @blind: it has a channel whose USERD qgpu does not read (RM's own, or mapping it failed)
 * @work: a channel of it has work queued or running, GP_PUT seen by the engine or not (scratch
 *	of the sample)
 * @queued: a channel of it has work queued: its GP_PUT is not its GP_GET (scratch of the sample)
 */
struct qgpu_sched_tsg {
	struct list_head link;
	struct qgpu_sched_inst *si;
	const struct qgpu_mem_charge *group;
	unsigned int refs;
	u32 hdup;
	bool tenant_enabled;
	bool tuned;
	bool blind;
	bool busy;
	bool whole;
	bool moved;
	bool work;
	bool queued;
};

/**
 * struct qgpu_sched_chan - a tenant's channel
 * @link: entry in the instance's @chans while qgpu reads its USERD, under the GPU's lock
 * @all: entry in the instance's @all_chans, under the GPU's lock
 * @hclient: the tenant's client, which RM's FIFO_DISABLE_CHANNELS list names with @handle
 * @handle: the channel's handle
 * @tenant_disabled: the tenant disabled it with FIFO_DISABLE_CHANNELS (qgpu_disable.c): qgpu's
 *	release leaves it disabled (under the GPU's mutex)
 * @tuned: with no @tsg, the tenant set the interleave level of its group through it (NVA06F
 *	SET_INTERLEAVE_LEVEL), as struct qgpu_sched_tsg's @tuned says of a group (under the GPU's
 *	mutex)
 * @si: the instance (a reference on its kobject while this lives)
 * @tsg: its channel group, or NULL (an implicit group of its own, or one qgpu does not hold)
 * @hmem: qgpu's duplicate of the channel's USERD memory, in its kernel client (0: not read)
 * @linear: where RM mapped it into the kernel (the channel's USERD, for unmapping)
 * @userd: the same, for reading GP_GET and GP_PUT (the GPU writes it: I/O memory on a real GPU);
 *	NULL when qgpu does not read it (RM's own USERD, or mapping it failed)
 * @entries: the ring's length in entries (gpFifoEntries)
 * @gp_get: GP_GET at the last sample
 * @moved_at: when GP_GET last moved, or the instance last could ring (under the GPU's lock)
 * @put_known: GP_PUT the engine knows of, as far as qgpu can tell (under the GPU's lock)
 * @put_sampled: @put_known when the last sample ended (under the GPU's lock)
 * @put_seen: GP_PUT at the last sample (under the GPU's lock)
 * @put_went: entries GP_PUT went forward over the samples, counted up to a ring and one (under
 *	the GPU's lock)
 */
struct qgpu_sched_chan {
	struct list_head link;
	struct list_head all;
	u32 hclient;
	u32 handle;
	bool tenant_disabled;
	bool tuned;
	struct qgpu_sched_inst *si;
	struct qgpu_sched_tsg *tsg;
	u32 hmem;
	u64 linear;
	void __iomem *userd;
	u32 entries;
	u32 gp_get;
	u64 moved_at;
	u32 put_known;
	u32 put_sampled;
	u32 put_seen;
	u32 put_went;
};

/* Entries from @from to @to round @ch's ring. */
static u32 qgpu_sched_span(const struct qgpu_sched_chan *ch, u32 from, u32 to)
{
	return to >= from ? to - from : ch->entries - from + to;
}

static u64 qgpu_sched_now(void)
{
	return ktime_get_ns();
}

static void qgpu_sched_kick(struct qgpu_sched_gpu *sg)
{
	WRITE_ONCE(sg->kick, true);
	wake_up_process(sg->thread);
}

/* One FIFO_DISABLE_CHANNELS through qgpu's kernel client, on its subdevice of the GPU. */
static u32 qgpu_sched_disable_call(struct qgpu_gpu *gpu, struct nvrm_fifo_disable_channels *p)
{
	u32 hsub, status = qgpu_kclient_subdevice(gpu, &hsub);

	if (!status)
		status = qgpu_kclient_control(hsub, NVRM_CTRL_CMD_FIFO_DISABLE_CHANNELS, p,
					      sizeof(*p));
	return status;
}

/*
 * One of the thread's FIFO_DISABLE_CHANNELS, timed: on a GSP-based GPU RM spins the calling CPU
 * until the firmware answers (_kgspRpcRecvPoll(), kernel_gsp.c, 580), so the time is CPU time
 * the scheduler spends on every switch, an enable and a disable. ``control_us`` shows it, for
 * choosing period_us. A wait for the kernel client's lock, held by a tenant's call, is counted
 * too, though it sleeps: it is rare, and the time is still the switch's.
 */
static u32 qgpu_sched_timed_call(struct qgpu_sched_gpu *sg, struct nvrm_fifo_disable_channels *p)
{
	u64 t0, took, avg;
	u32 status;

	lockdep_assert_held(&sg->mutex);
	t0 = qgpu_sched_now();
	status = qgpu_sched_disable_call(sg->gpu, p);
	took = qgpu_sched_now() - t0;
	avg = sg->control_ns ? (3 * sg->control_ns + took) / 4 : took;
	WRITE_ONCE(sg->control_ns, avg);
	return status;
}

/* Issue entries [@lo, @lo + @len) of @sg's batch as one call (qgpu_sc_issue_split()). */
static bool qgpu_sched_disable_part(void *ctx, unsigned int lo, unsigned int len)
{
	struct qgpu_sched_gpu *sg = ctx;
	struct nvrm_fifo_disable_channels *p = &sg->batch, *part = &sg->retry;

	if (lo == 0 && len == p->num_channels)
		return !qgpu_sched_timed_call(sg, p);
	memset(part, 0, sizeof(*part));
	part->disable = p->disable;
	part->only_disable_scheduling = p->only_disable_scheduling;
	part->num_channels = len;
	memcpy(part->hclient_list, &p->hclient_list[lo], len * sizeof(u32));
	memcpy(part->hchannel_list, &p->hchannel_list[lo], len * sizeof(u32));
	return !qgpu_sched_timed_call(sg, part);
}

/*
 * Issue @sg's batch. RM checks the whole list before it changes anything, so where it refuses
 * it (a channel RM freed before qgpu's mirror let go of it) the list is split in halves until
 * the channels it refuses go alone (qgpu_sc_issue_split()): a dozen calls for one refused channel
 * in 64, not one call for every channel, and each call is a round trip that spins a CPU on a
 * GSP-based GPU (qgpu_sched_batch_begin()).
 */
static void qgpu_sched_disable_list(struct qgpu_sched_gpu *sg)
{
	qgpu_sc_issue_split(sg->batch.num_channels, qgpu_sched_disable_part, sg);
}

static u32 qgpu_sched_tsg_timeslice(u32 hdup, u32 us)
{
	struct nvrm_tsg_timeslice p = { .timeslice_us = us };

	return qgpu_kclient_control(hdup, NVRM_CTRL_CMD_NVA06C_SET_TIMESLICE, &p, sizeof(p));
}

/*
 * Channel changes go out in batches across instances: one FIFO_DISABLE_CHANNELS for every 64
 * channels, whoever they belong to. On a GSP-based GPU each call is a round trip to the firmware
 * whatever its length (an H200 with GSP 580.159.04, session 21: disabling 1, 8 or 12 channels
 * took 0.44-0.53 ms, 20 took 0.61-0.67 ms; enabling 0.28-0.43 ms), so a switch that holds or
 * releases several instances pays it once rather than once per instance, and offline work
 * leaves the engine after one call however many offline instances run.
 */
static void qgpu_sched_batch_begin(struct qgpu_sched_gpu *sg, bool run)
{
	lockdep_assert_held(&sg->mutex);
	memset(&sg->batch, 0, sizeof(sg->batch));
	sg->batch.disable = !run;
}

static void qgpu_sched_batch_flush(struct qgpu_sched_gpu *sg)
{
	lockdep_assert_held(&sg->mutex);
	if (sg->batch.num_channels)
		qgpu_sched_disable_list(sg);
	sg->batch.num_channels = 0;
}

/*
 * Add every channel of @si to the batch, but for those its tenant disabled itself; a full list
 * goes out at once. The GPU's lock is dropped for each call, so the walk resumes by position.
 */
static void qgpu_sched_batch_add(struct qgpu_sched_gpu *sg, struct qgpu_sched_inst *si)
{
	struct nvrm_fifo_disable_channels *p = &sg->batch;
	struct qgpu_sched_chan *ch;
	unsigned int skip = 0, i, added;
	bool full;

	lockdep_assert_held(&sg->mutex);
	do {
		added = 0;
		i = 0;
		full = false;
		spin_lock(&sg->lock);
		list_for_each_entry(ch, &si->all_chans, all) {
			if (ch->tenant_disabled || i++ < skip)
				continue;
			if (p->num_channels == NVRM_FIFO_DISABLE_CHANNELS_MAX_ENTRIES) {
				full = true;
				break;
			}
			p->hclient_list[p->num_channels] = ch->hclient;
			p->hchannel_list[p->num_channels++] = ch->handle;
			added++;
		}
		spin_unlock(&sg->lock);
		if (full) {
			qgpu_sched_batch_flush(sg);
			skip += added;
		}
	} while (full);
}

/*
 * Tell every channel of @si the instance's state: FIFO_DISABLE_CHANNELS disables them to hold
 * and enables them to run, but for those its tenant disabled itself.
 */
static void qgpu_sched_apply(struct qgpu_sched_inst *si, bool run)
{
	qgpu_sched_batch_begin(si->sg, run);
	qgpu_sched_batch_add(si->sg, si);
	qgpu_sched_batch_flush(si->sg);
}

/* Hold one channel of a held instance (new, or its tenant enabled it itself). */
static void qgpu_sched_hold_chan(struct qgpu_sched_gpu *sg, struct qgpu_sched_chan *ch)
{
	struct nvrm_fifo_disable_channels *p = &sg->batch;

	qgpu_sched_batch_begin(sg, false);
	p->hclient_list[0] = ch->hclient;
	p->hchannel_list[0] = ch->handle;
	p->num_channels = 1;
	qgpu_sched_batch_flush(sg);
}

static void qgpu_sched_event(struct qgpu_sched_gpu *sg, const char *what, const char *inst,
			     const char *detail)
{
	struct qgpu_event ev = {
		.event = what,
		.gpu = sg->gpu->index,
		.instance = inst,
		.detail = detail,
	};

	qgpu_event_emit(&ev);
}

/*
 * A held group's GP_GET moved after the grace. Several such moves within a second, not one, show
 * the controls inert: an engine that runs late (an emulated GPU, a busy host) writes GP_GET for
 * work it did before the hold, all at once. Under the GPU's lock.
 */
static bool qgpu_sched_held_moved(struct qgpu_sched_gpu *sg, u64 now)
{
	if (now - sg->held_moves_since >= NSEC_PER_SEC) {
		sg->held_moves_since = now;
		sg->held_moves = 0;
	}
	return ++sg->held_moves >= QGPU_SCHED_HELD_MOVES;
}

/* What one channel's sample says about GP_GET's write-back (enum qgpu_sched_gp_get). */
static void qgpu_sched_gp_get_seen(struct qgpu_sched_gpu *sg, struct qgpu_sched_chan *ch,
				   bool moved, u32 put)
{
	if (put < ch->entries && ch->put_went <= ch->entries) {
		ch->put_went += qgpu_sched_span(ch, ch->put_seen, put);
		ch->put_seen = put;
	}
	if (moved) {
		WRITE_ONCE(sg->gp_get, QGPU_GP_GET_MOVES);
	} else if (sg->gp_get == QGPU_GP_GET_UNKNOWN && ch->put_went > ch->entries) {
		pr_info("gpu%u: a ring went round with no GP_GET moving: GP_GET is not written back, so held groups cannot show the controls inert\n",
			sg->gpu->index);
		WRITE_ONCE(sg->gp_get, QGPU_GP_GET_STILL);
	}
}

/*
 * Read every channel's GP_GET: which groups had work since the last sample (the estimate
 * fixed-share charges while the controls are inert), and whether held groups keep running (the
 * controls are inert). And GP_PUT: which groups on the runlist have work, for whether the engine's
 * round robin meets the guarantees (struct qgpu_sc_inst.groups_work, .groups_rr); a group with
 * a channel qgpu cannot read counts as having work while its instance is active. Under the GPU's
 * mutex and lock.
 */
static void qgpu_sched_sample(struct qgpu_sched_gpu *sg, u64 now)
{
	struct qgpu_sched_inst *si;
	struct qgpu_sched_tsg *tsg;
	struct qgpu_sched_chan *ch;
	bool inert = sg->sc.inert, any = false;

	lockdep_assert_held(&sg->mutex);
	lockdep_assert_held(&sg->lock);
	list_for_each_entry(si, &sg->insts, link) {
		u32 busy = 0, part = 0, work = 0, rr = 0;
		bool unequal = false, queued = false;

		list_for_each_entry(tsg, &si->tsgs, link) {
			tsg->busy = false;
			tsg->whole = false;
			tsg->moved = false;
			tsg->work = false;
			tsg->queued = false;
		}
		list_for_each_entry(ch, &si->chans, link) {
			u32 get = readl(ch->userd + NVRM_USERD_GP_GET);
			u32 put = readl(ch->userd + NVRM_USERD_GP_PUT);
			bool moved, had, whole;

			if (get >= ch->entries)
				get = ch->gp_get;	/* not a ring index: the tenant's doing */
			moved = get != ch->gp_get;
			qgpu_sched_gp_get_seen(sg, ch, moved, put);
			had = ch->gp_get != ch->put_known;
			/*
			 * GP_GET went past what qgpu saw rung (rings that did not fault): the
			 * engine knew at least that much. A held instance's work that has not
			 * moved for QGPU_SCHED_STILL_NS is not on the engine: a ring that waits at
			 * the gate may have been seen go through by an earlier fault of the same
			 * store.
			 */
			if (moved && qgpu_sched_span(ch, ch->gp_get, ch->put_known) <=
				     qgpu_sched_span(ch, ch->gp_get, get))
				ch->put_known = get;
			if (moved || si->may_run) {
				ch->moved_at = now;
			} else if (had && now - ch->moved_at >= QGPU_SCHED_STILL_NS) {
				ch->put_known = get;
				had = false;
			}
			/* known work at both ends of the sample: busy all of it */
			whole = had && ch->gp_get != ch->put_sampled && get != ch->put_known;
			ch->gp_get = get;
			ch->put_sampled = ch->put_known;
			if (ch->tsg) {
				ch->tsg->busy |= moved || had;
				ch->tsg->whole |= whole;
				ch->tsg->moved |= moved;
				ch->tsg->work |= moved || put != get;
				ch->tsg->queued |= put != get;
			} else {
				/* an implicit group of its own, on the runlist as far as we know */
				busy += moved || had;
				part += (moved || had) && !whole;
				work += moved || put != get;
				queued |= put != get;
				unequal |= ch->tuned;
				rr++;
			}
		}
		list_for_each_entry(tsg, &si->tsgs, link) {
			bool held = !si->applied && tsg->tenant_enabled && si->held_at;

			any = true;
			busy += tsg->busy;
			part += tsg->busy && !tsg->whole;
			if (held && tsg->moved &&
			    sg->sampled_at >= si->held_at + QGPU_SCHED_HOLD_GRACE_NS)
				inert |= qgpu_sched_held_moved(sg, now);
			if (!tsg->tenant_enabled)
				continue;
			rr++;
			work += tsg->work || (tsg->blind && qgpu_sc_active(&si->sc));
			queued |= tsg->queued;
			unequal |= tsg->tuned;
		}
		si->queued = queued;
		si->sc.groups_busy = busy;
		si->sc.groups_part = part;
		si->sc.groups_work = work;
		si->sc.groups_rr = rr;
		si->sc.rr_unequal = unequal;
	}
	sg->sampled_at = now;
	if (!any) {
		/* no group left to watch: start again from the RM contract */
		sg->sc.inert = false;
		WRITE_ONCE(sg->gp_get, QGPU_GP_GET_UNKNOWN);
		return;
	}
	if (inert && !sg->sc.inert) {
		pr_info("gpu%u: held channel groups keep running: channel-group controls inert\n",
			sg->gpu->index);
		sg->sc.inert = true;
		sg->sc.owner = NULL;
	}
}

/*
 * @si may run now: its groups join the enable batch, and its doorbell opens once the batch has
 * gone out (qgpu_sched_open()).
 */
static unsigned int qgpu_sched_release(struct qgpu_sched_gpu *sg, struct qgpu_sched_inst *si)
{
	lockdep_assert_held(&sg->mutex);
	if (!si->want || si->applied)
		return 0;
	si->applied = true;
	si->opening = true;
	si->held_at = 0;
	qgpu_sched_batch_add(sg, si);
	return 1;
}

/* The doorbells of the instances just released open: their groups are back on the runlist. */
static void qgpu_sched_open(struct qgpu_sched_gpu *sg)
{
	struct qgpu_sched_inst *si;

	lockdep_assert_held(&sg->mutex);
	list_for_each_entry(si, &sg->insts, link) {
		if (!si->opening)
			continue;
		si->opening = false;
		spin_lock(&sg->lock);
		si->may_run = true;
		spin_unlock(&sg->lock);
		wake_up_all(&si->gate);
	}
}

/*
 * One decision, carried out. @kicked: something changed (a ring, a knob, a group), so USERD is
 * read afresh. Returns when the next decision is due (absolute ns).
 */
static u64 qgpu_sched_step(struct qgpu_sched_gpu *sg, bool kicked)
{
	struct qgpu_sched_inst *si, *online = NULL;
	unsigned int k, released = 0;
	bool any_active = false, sampled;
	char detail[QGPU_NAME_MAX + 20];
	u64 now, next, held_at;

	mutex_lock(&sg->mutex);
	spin_lock(&sg->lock);
	now = qgpu_sched_now();
	/* what ran since the last step, for the accounting; what has work, for relaxing */
	sampled = kicked || sg->sc.relaxed || sg->sc.policy == QGPU_POLICY_FIXED_SHARE ||
		  now - sg->sampled_at >= QGPU_SCHED_SAMPLE_NS;
	if (sampled)
		qgpu_sched_sample(sg, now);
	qgpu_sc_account(&sg->sc, sg->v, sg->n, now);
	/*
	 * Work queued is work, rung or not: the engine may run an instance's work slower than
	 * the time it was allowed (a slow or shared engine, a round robin of many groups), so a
	 * ring's activity can run out while its kernels still wait. Only a fresh sample counts.
	 */
	if (sampled)
		list_for_each_entry(si, &sg->insts, link)
			if (si->queued)
				qgpu_sc_queued(&si->sc);
	next = qgpu_sc_decide(&sg->sc, sg->v, sg->n, now);
	list_for_each_entry(si, &sg->insts, link) {
		bool active = qgpu_sc_active(&si->sc);

		si->want = si->sc.run;
		/* online work arrived: an online instance idle at the last decision is active */
		if (active && !si->was_active && si->sc.cls == QGPU_CLASS_ONLINE && !online)
			online = si;
		si->was_active = active;
		any_active |= active;
		if (!si->want)
			si->may_run = false;	/* the gate closes before the groups go off */
	}
	spin_unlock(&sg->lock);

	/*
	 * Who may run now is enabled before who may not is disabled: the engine keeps running the
	 * outgoing group until its disable preempts it, so a switch leaves no idle gap however long
	 * the controls take.
	 */
	qgpu_sched_batch_begin(sg, true);
	k = 0;
	list_for_each_entry(si, &sg->insts, link)
		if (k++ >= sg->rotate)
			released += qgpu_sched_release(sg, si);
	k = 0;
	list_for_each_entry(si, &sg->insts, link)
		if (k++ < sg->rotate)
			released += qgpu_sched_release(sg, si);
	qgpu_sched_batch_flush(sg);
	qgpu_sched_open(sg);
	/*
	 * Groups enabled together join the runlist in that order (nvsim appends them; a real
	 * GPU's order is RM's), and a joint window may end before the round robin has come round
	 * to all of them more than once: start the next batch elsewhere, by a golden-ratio stride,
	 * so that the extra turns do not always go to the same instances.
	 */
	if (released > 1 && sg->n)
		sg->rotate = (sg->rotate + (sg->n * 618 + 999) / 1000) % sg->n;
	qgpu_sched_batch_begin(sg, false);
	list_for_each_entry(si, &sg->insts, link) {
		if (si->want || !si->applied)
			continue;
		si->applied = false;
		si->holding = true;
		qgpu_sched_batch_add(sg, si);
	}
	qgpu_sched_batch_flush(sg);
	held_at = qgpu_sched_now();
	list_for_each_entry(si, &sg->insts, link) {
		if (!si->holding)
			continue;
		si->holding = false;
		si->held_at = held_at;
		/*
		 * Until the controls are known inert, look once more when the hold's grace ends:
		 * under fixed-share the next decision may come only when the hold does, and a move
		 * is evidence only in a sample that starts after the grace.
		 */
		if (!READ_ONCE(sg->sc.inert) && !list_empty(&si->chans) &&
		    READ_ONCE(sg->sc.policy) == QGPU_POLICY_FIXED_SHARE)
			next = min(next, si->held_at + QGPU_SCHED_HOLD_GRACE_NS);
		if (!si->was_active)
			continue;
		si->preemptions++;
		if (si->sc.cls == QGPU_CLASS_OFFLINE && online) {
			snprintf(detail, sizeof(detail), "preempted by %s", online->inst->name);
			qgpu_sched_event(sg, "preempt", si->inst->name, detail);
		}
	}
	mutex_unlock(&sg->mutex);
	return any_active ? next : now + QGPU_SCHED_IDLE_NS;
}

static int qgpu_sched_thread(void *data)
{
	struct qgpu_sched_gpu *sg = data;

	while (!kthread_should_stop()) {
		bool kicked = READ_ONCE(sg->kick);
		ktime_t expires;

		WRITE_ONCE(sg->kick, false);
		expires = ns_to_ktime(qgpu_sched_step(sg, kicked));
		set_current_state(TASK_INTERRUPTIBLE);
		if (!READ_ONCE(sg->kick) && !kthread_should_stop())
			schedule_hrtimeout_range(&expires, QGPU_SCHED_SLACK_NS, HRTIMER_MODE_ABS);
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/* Rebuild the array from the list, after a change of membership. */
static void qgpu_sched_rebuild(struct qgpu_sched_gpu *sg)
{
	struct qgpu_sched_inst *si;
	unsigned int n = 0;

	lockdep_assert_held(&sg->mutex);
	spin_lock(&sg->lock);
	list_for_each_entry(si, &sg->insts, link)
		if (n < ARRAY_SIZE(sg->v))
			sg->v[n++] = &si->sc;
	sg->n = n;
	spin_unlock(&sg->lock);
}

/**
 * qgpu_sched_gpu_init() - a GPU's scheduler: best-effort, the engine's default timeslice
 * @gpu: the GPU, not yet visible
 *
 * Return: 0, -ENOMEM, or the error of starting its thread.
 */
int qgpu_sched_gpu_init(struct qgpu_gpu *gpu)
{
	struct qgpu_sched_gpu *sg = kzalloc(sizeof(*sg), GFP_KERNEL);

	if (!sg)
		return -ENOMEM;
	sg->gpu = gpu;
	mutex_init(&sg->mutex);
	spin_lock_init(&sg->lock);
	qgpu_sc_init(&sg->sc);
	INIT_LIST_HEAD(&sg->insts);
	sg->timeslice_us = NVRM_TSG_DEFAULT_TIMESLICE_US;
	sg->thread = kthread_create(qgpu_sched_thread, sg, "qgpu-sched/%u", gpu->index);
	if (IS_ERR(sg->thread)) {
		int ret = PTR_ERR(sg->thread);

		kfree(sg);
		return ret;
	}
	/*
	 * Real-time (the lowest FIFO priority, above every normal task), as threaded interrupt
	 * handlers are: busy tenant processes must not delay a decision, and holding offline
	 * work when online work arrives is a wake-up of this thread.
	 */
	sched_set_fifo_low(sg->thread);
	wake_up_process(sg->thread);
	gpu->sched = sg;
	return 0;
}

/**
 * qgpu_sched_gpu_exit() - stop a GPU's scheduler
 * @gpu: the GPU; none of its instances is left
 */
void qgpu_sched_gpu_exit(struct qgpu_gpu *gpu)
{
	struct qgpu_sched_gpu *sg = gpu->sched;

	if (!sg)
		return;
	kthread_stop(sg->thread);
	gpu->sched = NULL;
	kfree(sg);
}

/**
 * qgpu_sched_admit() - may @self (or a new instance) have @core percent on @gpu?
 * @gpu: the GPU
 * @self: the instance whose core changes, or NULL for a new one
 * @core: its core percent
 *
 * Context: qgpu_lock held (it keeps the instance list and the policy still).
 * Return: whether the GPU's guarantees stay within 100% (always under best-effort).
 */
bool qgpu_sched_admit(struct qgpu_gpu *gpu, struct qgpu_instance *self, u32 core)
{
	struct qgpu_instance *inst;
	u32 sum = 0;

	lockdep_assert_held(&qgpu_lock);
	list_for_each_entry(inst, &gpu->instances, gpu_link)
		if (inst != self && inst->state != QGPU_INST_REMOVED)
			sum += inst->settings.core;
	return qgpu_sc_admit(gpu->sched->sc.policy, sum, core);
}

/**
 * qgpu_sched_inst_init() - a new instance joins its GPU's scheduler
 * @inst: the instance, its settings filled in
 *
 * Return: 0 or -ENOMEM.
 */
int qgpu_sched_inst_init(struct qgpu_instance *inst)
{
	struct qgpu_sched_gpu *sg = inst->gpu->sched;
	struct qgpu_sched_inst *si = kzalloc(sizeof(*si), GFP_KERNEL);

	if (!si)
		return -ENOMEM;
	qgpu_sc_inst_init(&si->sc, inst->settings.core, inst->settings.cls);
	si->inst = inst;
	si->sg = sg;
	INIT_LIST_HEAD(&si->tsgs);
	INIT_LIST_HEAD(&si->chans);
	INIT_LIST_HEAD(&si->all_chans);
	init_waitqueue_head(&si->gate);
	inst->sched = si;
	mutex_lock(&sg->mutex);
	list_add_tail(&si->link, &sg->insts);
	qgpu_sched_rebuild(sg);
	mutex_unlock(&sg->mutex);
	qgpu_sched_kick(sg);
	return 0;
}

/**
 * qgpu_sched_inst_remove() - an instance leaves the scheduler (removal)
 * @inst: the instance
 *
 * Its channel groups are held for good (a removed instance gets no more GPU time) and its
 * doorbell opens (no ring waits any more: its processes must be able to exit).
 */
void qgpu_sched_inst_remove(struct qgpu_instance *inst)
{
	struct qgpu_sched_inst *si = inst->sched;
	struct qgpu_sched_gpu *sg;

	if (!si || list_empty(&si->link))
		return;
	sg = si->sg;
	mutex_lock(&sg->mutex);
	list_del_init(&si->link);
	qgpu_sched_rebuild(sg);
	spin_lock(&sg->lock);
	qgpu_sc_forget(&sg->sc, &si->sc);
	si->removed = true;
	spin_unlock(&sg->lock);
	qgpu_sched_apply(si, false);
	si->applied = false;
	mutex_unlock(&sg->mutex);
	wake_up_all(&si->gate);
	qgpu_sched_kick(sg);
}

/**
 * qgpu_sched_inst_free() - the instance's last reference went
 * @inst: the instance; no channel group or wrapped mapping of it is left (each holds a
 *	reference)
 */
void qgpu_sched_inst_free(struct qgpu_instance *inst)
{
	struct qgpu_sched_inst *si = inst->sched;

	if (!si)
		return;
	WARN_ON(!list_empty(&si->tsgs) || !list_empty(&si->all_chans));
	kfree(si);
}

/**
 * qgpu_sched_ring() - the instance rang its doorbell
 * @si: the instance's scheduling state
 *
 * Marks the instance active (a decision is due at once if it was idle) and, while it is held,
 * waits until it may run, the instance is removed, or a fatal signal arrives.
 *
 * Context: a fault handler (mmap_lock held for reading); may sleep.
 */
void qgpu_sched_ring(struct qgpu_sched_inst *si)
{
	struct qgpu_sched_gpu *sg = si->sg;
	struct qgpu_sched_chan *ch;
	bool woke, open;

	spin_lock(&sg->lock);
	woke = qgpu_sc_ring(&sg->sc, &si->sc);
	open = si->may_run || si->removed;
	spin_unlock(&sg->lock);
	/*
	 * Only a wake, or new work that the round robin may not serve well enough while relaxed,
	 * changes a decision: a held active instance is already known to have work.
	 */
	if (woke)
		qgpu_sched_kick(sg);
	if (!open &&
	    wait_event_killable(si->gate, READ_ONCE(si->may_run) || READ_ONCE(si->removed)))
		return;
	/*
	 * The ring goes through: what its thread wrote to GP_PUT reaches the engine. Only the
	 * estimate of inert controls uses it; until then GP_GET moving past puts it right.
	 */
	if (!READ_ONCE(sg->sc.inert))
		return;
	spin_lock(&sg->lock);
	list_for_each_entry(ch, &si->chans, link)
		ch->put_known = readl(ch->userd + NVRM_USERD_GP_PUT);
	spin_unlock(&sg->lock);
}

/*
 * Tracker node release: RM freed a handle of the tenant's channel group, its own or a copy's.
 * With the last of them RM freed the group: drop the duplicate.
 */
static void qgpu_sched_tsg_release(struct qgpu_rmnode *node)
{
	struct qgpu_sched_tsg *tsg = node->payload;
	struct qgpu_sched_gpu *sg = tsg->si->sg;
	bool last;

	node->payload = NULL;
	mutex_lock(&sg->mutex);
	last = !--tsg->refs;
	if (last)
		list_del(&tsg->link);
	mutex_unlock(&sg->mutex);
	if (!last)
		return;
	qgpu_kclient_free(tsg->hdup);
	kobject_put(&tsg->si->inst->kobj);
	kfree(tsg);
}

static const struct qgpu_rmnode_ops qgpu_sched_tsg_ops = {
	.release = qgpu_sched_tsg_release,
};

/* Tracker node release: RM freed the tenant's channel; forget it, stop reading its USERD. */
static void qgpu_sched_chan_release(struct qgpu_rmnode *node)
{
	struct qgpu_sched_chan *ch = node->payload;
	struct qgpu_instance *inst = ch->si->inst;
	struct qgpu_sched_gpu *sg = ch->si->sg;

	spin_lock(&sg->lock);
	list_del(&ch->all);
	if (ch->userd)
		list_del(&ch->link);
	spin_unlock(&sg->lock);
	if (ch->userd) {
		qgpu_kclient_unmap(inst->gpu->kc_device, ch->hmem, ch->linear);
		qgpu_kclient_free(ch->hmem);
	}
	kobject_put(&inst->kobj);
	kfree(ch);
	node->payload = NULL;
}

static const struct qgpu_rmnode_ops qgpu_sched_chan_ops = {
	.release = qgpu_sched_chan_release,
};

/*
 * Map a channel's USERD (a memory object of the tenant's, hUserdMemory[0] at userdOffset[0])
 * into the kernel through a duplicate in qgpu's kernel client. The parameters are read after RM
 * read them: a tenant thread rewriting them in between can only point qgpu at another memory
 * object of its own client (the duplicate is made from the tenant's client), which misleads the
 * estimate of its own instance's use, and only while the controls are inert.
 */
static u32 qgpu_sched_chan_map(struct qgpu_instance *inst, struct qgpu_sched_chan *ch, u32 hroot,
			       const struct nvrm_alloc *a)
{
	struct nvrm_channel_alloc_params p;
	u32 hsub, status;

	if (!a->params_ptr ||
	    copy_from_user(&p, u64_to_user_ptr(a->params_ptr), offsetof(typeof(p), engine_type)) ||
	    !p.huserd_memory[0] || !p.gp_fifo_entries)
		return NVRM_ERR_NOT_SUPPORTED;	/* RM's own USERD: nothing qgpu can map */
	status = qgpu_kclient_subdevice(inst->gpu, &hsub);
	if (!status)
		status = qgpu_kclient_dup(inst->gpu->kc_device, hroot, p.huserd_memory[0],
					  &ch->hmem);
	if (status)
		return status;
	status = qgpu_kclient_map(inst->gpu->kc_device, ch->hmem, p.userd_offset[0],
				  NVRM_USERD_SIZE, &ch->linear);
	if (status) {
		qgpu_kclient_free(ch->hmem);
		return status;
	}
	ch->userd = (void __iomem *)(uintptr_t)ch->linear;
	ch->entries = p.gp_fifo_entries;
	return NVRM_OK;
}

/*
 * A channel: remember it, to hold and release it with its instance, and read its USERD where
 * qgpu can. A channel made while its instance is held is held at once. Returns whether qgpu
 * reads its USERD.
 */
static bool qgpu_sched_chan_track(struct qgpu_file *qf, struct qgpu_rmnode *node, u32 hroot,
				  const struct nvrm_alloc *a)
{
	struct qgpu_instance *inst = qf->inst;
	struct qgpu_sched_inst *si = inst->sched;
	struct qgpu_sched_chan *ch;
	u32 status;

	ch = kzalloc(sizeof(*ch), GFP_KERNEL_ACCOUNT);
	if (!ch)
		return false;
	status = qgpu_sched_chan_map(inst, ch, hroot, a);
	if (status && status != NVRM_ERR_NOT_SUPPORTED)
		pr_warn_ratelimited("%s: cannot read the USERD of channel 0x%x: %s\n", inst->name,
				    node->handle, nvrm_status_name(status));
	ch->si = si;
	ch->hclient = hroot;
	ch->handle = node->handle;
	if (node->parent && node->parent->ops == &qgpu_sched_tsg_ops)
		ch->tsg = node->parent->payload;
	kobject_get(&inst->kobj);
	mutex_lock(&si->sg->mutex);
	spin_lock(&si->sg->lock);
	list_add_tail(&ch->all, &si->all_chans);
	if (ch->userd) {
		ch->gp_get = readl(ch->userd + NVRM_USERD_GP_GET);
		ch->put_known = readl(ch->userd + NVRM_USERD_GP_PUT);
		ch->put_sampled = ch->put_known;
		ch->put_seen = ch->put_known < ch->entries ? ch->put_known : 0;
		list_add_tail(&ch->link, &si->chans);
	}
	spin_unlock(&si->sg->lock);
	if (!si->applied)
		qgpu_sched_hold_chan(si->sg, ch);
	mutex_unlock(&si->sg->mutex);
	node->payload = ch;
	node->ops = &qgpu_sched_chan_ops;
	return !!ch->userd;
}

/*
 * Take hold of the tenant's channel group @node, a group RM made or a copy of one: duplicate it
 * into qgpu's kernel client, give it the GPU's timeslice, and count it in the instance. The
 * tracker's lock held.
 */
static void qgpu_sched_tsg_make(struct qgpu_instance *inst, struct qgpu_rmnode *node)
{
	u32 hroot = qgpu_rmnode_root(node)->handle;
	struct qgpu_sched_inst *si = inst->sched;
	struct qgpu_sched_tsg *tsg;
	u32 hsub, status;

	tsg = kzalloc(sizeof(*tsg), GFP_KERNEL_ACCOUNT);
	if (!tsg)
		return;
	status = qgpu_kclient_subdevice(inst->gpu, &hsub);
	if (!status)
		status = qgpu_kclient_dup(inst->gpu->kc_device, hroot, node->handle, &tsg->hdup);
	if (status) {
		pr_warn_ratelimited("%s: cannot take hold of channel group 0x%x: %s\n",
				    inst->name, node->handle, nvrm_status_name(status));
		kfree(tsg);
		return;
	}
	tsg->si = si;
	tsg->group = node->held;
	tsg->refs = 1;
	kobject_get(&inst->kobj);
	mutex_lock(&si->sg->mutex);
	qgpu_sched_tsg_timeslice(tsg->hdup, si->sg->timeslice_us);
	list_add_tail(&tsg->link, &si->tsgs);
	mutex_unlock(&si->sg->mutex);
	node->payload = tsg;
	node->ops = &qgpu_sched_tsg_ops;
}

/**
 * qgpu_sched_rm_alloc() - RM made an object through @qf: take hold of a channel group, or
 * watch a channel
 * @qf: the ctl proxy (its tracker's lock held)
 * @node: the object's new tracker node
 * @a: the RM_ALLOC as qgpu decoded it (its parameters pointer is the tenant's)
 */
void qgpu_sched_rm_alloc(struct qgpu_file *qf, struct qgpu_rmnode *node,
			 const struct nvrm_alloc *a)
{
	struct qgpu_instance *inst = qf->inst;
	struct qgpu_sched_inst *si = inst->sched;
	struct qgpu_sched_tsg *tsg;

	if (!si)
		return;
	if (qgpu_is_channel_class(node->hclass)) {
		/* a group with a channel qgpu cannot read may have work qgpu does not see */
		if (!qgpu_sched_chan_track(qf, node, qgpu_rmnode_root(node)->handle, a) &&
		    node->parent && node->parent->ops == &qgpu_sched_tsg_ops) {
			tsg = node->parent->payload;
			mutex_lock(&si->sg->mutex);
			tsg->blind = true;
			mutex_unlock(&si->sg->mutex);
		}
		return;
	}
	if (node->hclass == NVRM_CLASS_KEPLER_CHANNEL_GROUP_A)
		qgpu_sched_tsg_make(inst, node);
}

/**
 * qgpu_sched_rm_copy() - RM made a copy of an object through @qf: a copy of a channel group names
 * the group qgpu holds
 * @qf: the ctl proxy (its tracker's lock held)
 * @node: the copy's new tracker node, or NULL (not mirrored)
 *
 * A copy (RM_DUP_OBJECT, or an import) of a KEPLER_CHANNEL_GROUP_A is another handle to the same
 * group (kchangrpapiCopyConstruct_IMPL(), 525-595): channels made under it are the group's, its
 * GPFIFO_SCHEDULE and SET_TIMESLICE are the group's, and RM keeps the group until its last handle
 * goes. The copy's node holds the group's charge, as the group's own node does, wherever the copy
 * was made from (another ctl file's client of the instance, an export): the group is found by
 * that charge. Where it is not found, qgpu takes hold of the group through the copy, as of a new
 * group: the group's own handle and its other copies may all have gone while RM made the copy
 * (another file's RM_FREE racing it), or the copy's source was one the mirror could not vouch
 * for, and got a charge of its own (qgpu_ctxbuf_own()). Such a group may then be counted twice,
 * which costs only its own instance (its turns in the round robin look more than they are).
 */
void qgpu_sched_rm_copy(struct qgpu_file *qf, struct qgpu_rmnode *node)
{
	struct qgpu_sched_inst *si = qf->inst->sched;
	struct qgpu_sched_tsg *tsg, *found = NULL;

	if (!si || !node || node->ops || !node->held || !qgpu_mem_charge_is_group(node->held))
		return;
	mutex_lock(&si->sg->mutex);
	list_for_each_entry(tsg, &si->tsgs, link) {
		if (tsg->group == node->held) {
			tsg->refs++;
			found = tsg;
			break;
		}
	}
	mutex_unlock(&si->sg->mutex);
	if (found) {
		node->payload = found;
		node->ops = &qgpu_sched_tsg_ops;
		return;
	}
	qgpu_sched_tsg_make(qf->inst, node);
}

/*
 * A control that gives a channel group turns of its own length in the engine's round robin; the
 * interleave level may be set through any channel of the group too (kchannelCtrlCmdSet-
 * InterleaveLevel_IMPL(), 580.142, with the group's access flags).
 */
static bool qgpu_sched_is_tuning_control(const struct nvrm_control *c)
{
	return c->cmd == NVRM_CTRL_CMD_NVA06C_SET_TIMESLICE ||
	       c->cmd == NVRM_CTRL_CMD_NVA06C_SET_INTERLEAVE_LEVEL ||
	       c->cmd == NVRM_CTRL_CMD_NVA06F_SET_INTERLEAVE_LEVEL;
}

/**
 * qgpu_sched_is_schedule_control() - is this a tenant's GPFIFO_SCHEDULE, or a control that
 * changes its channel group's turns in the engine's round robin?
 * @c: the decoded control
 *
 * Return: true for NVA06C (channel group) and NVA06F (channel) GPFIFO_SCHEDULE, NVA06C
 * SET_TIMESLICE and SET_INTERLEAVE_LEVEL, NVA06F SET_INTERLEAVE_LEVEL, and NVA06C MAKE_REALTIME
 * (serialized or not: only their target matters).
 */
bool qgpu_sched_is_schedule_control(const struct nvrm_control *c)
{
	return ((c->cmd == NVRM_CTRL_CMD_NVA06C_GPFIFO_SCHEDULE ||
		 c->cmd == NVRM_CTRL_CMD_NVA06F_GPFIFO_SCHEDULE) && !c->finn_serialized) ||
	       qgpu_sched_is_tuning_control(c) || c->cmd == NVRM_CTRL_CMD_NVA06C_MAKE_REALTIME;
}

/*
 * A tenant's SET_TIMESLICE or SET_INTERLEAVE_LEVEL on a channel group, or
 * SET_INTERLEAVE_LEVEL on one of its channels, forwarded. A timeslice of a group qgpu holds is
 * then set back to the GPU's timeslice_us through qgpu's duplicate, so the turns stay equal:
 * libcuda sets one on every context's graphics group (2048 us, CUDA 13.0 on an H200, session
 * 37), and taking that as the tenant's own would keep burst-share from ever relaxing. Otherwise,
 * once one went through, the group's turns are its own length, and the GPU's scheduler stops
 * counting on the round robin for the guarantees while the group lives (a group qgpu does not
 * hold, while the channel lives).
 */
static long qgpu_sched_tuning(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
			      bool compat, const struct nvrm_control *c)
{
	struct qgpu_rmtrack *t = qf->track;
	struct qgpu_sched_chan *ch = NULL;
	struct qgpu_sched_tsg *tsg = NULL;
	struct qgpu_sched_gpu *sg = NULL;
	struct qgpu_rmnode *node;
	u32 status;
	long ret;

	if (!t)
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	mutex_lock(&t->lock);
	ret = qgpu_forward_control(qf, cmd, arg, compat, c, &status);
	if (!ret && status == NVRM_OK) {
		node = qgpu_rmtrack_find(t, c->hclient, c->hobject);
		if (node && node->ops == &qgpu_sched_tsg_ops) {
			tsg = node->payload;
			sg = tsg->si->sg;
		} else if (node && node->ops == &qgpu_sched_chan_ops) {
			ch = node->payload;	/* its group's level, set through it */
			tsg = ch->tsg;
			sg = ch->si->sg;
		}
	}
	if (sg) {
		mutex_lock(&sg->mutex);
		if (tsg && c->cmd == NVRM_CTRL_CMD_NVA06C_SET_TIMESLICE &&
		    qgpu_sched_tsg_timeslice(tsg->hdup, sg->timeslice_us) == NVRM_OK)
			;	/* the GPU's again */
		else if (tsg)
			tsg->tuned = true;
		else
			ch->tuned = true;
		mutex_unlock(&sg->mutex);
		qgpu_sched_kick(sg);
	}
	mutex_unlock(&t->lock);
	return ret;
}

/**
 * qgpu_sched_control() - forward a tenant's GPFIFO_SCHEDULE, and keep a held instance held; or
 * a control that changes its group's turns in the round robin, and remember that
 * @qf: the ctl proxy
 * @cmd: the ioctl command
 * @arg: the NVOS54 parameters (user pointer)
 * @compat: forward to compat_ioctl
 * @c: the decoded control
 *
 * Context: process context; takes the tracker's lock and the GPU scheduler's mutex.
 * Return: what the driver returns.
 */
long qgpu_sched_control(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, bool compat,
			const struct nvrm_control *c)
{
	struct qgpu_rmtrack *t = qf->track;
	struct qgpu_sched_inst *si = qf->inst->sched;
	struct qgpu_sched_tsg *tsg = NULL;
	struct qgpu_rmnode *node;
	u32 status;
	u8 enable;
	long ret;

	if (qgpu_sched_is_tuning_control(c))
		return qgpu_sched_tuning(qf, cmd, arg, compat, c);
	/*
	 * A real-time group preempts every group that is not, and runs first (ctrla06c.h): past
	 * every policy and every other instance. RM lets any client ask (NVOC flags 0x48, 580.142),
	 * so qgpu refuses it, whatever the parameters say, with RM's status for a privilege.
	 */
	if (c->cmd == NVRM_CTRL_CMD_NVA06C_MAKE_REALTIME) {
		qgpu_mem_call_refused(qf->inst, "MAKE_REALTIME (a real-time channel group)");
		return put_user(NVRM_ERR_INSUFFICIENT_PERMISSIONS,
				(u32 __user *)(arg + offsetof(struct nvrm_nvos54, status))) ?
		       -EFAULT : 0;
	}
	if (!t || !c->params_ptr || !c->params_size ||
	    get_user(enable, (u8 __user *)u64_to_user_ptr(c->params_ptr)))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	mutex_lock(&t->lock);
	ret = qgpu_forward_control(qf, cmd, arg, compat, c, &status);
	if (ret || status != NVRM_OK)
		goto out_unlock;
	node = qgpu_rmtrack_find(t, c->hclient, c->hobject);
	/*
	 * A channel's own GPFIFO_SCHEDULE may enable it (nvsim's does; whether a real GPU's undoes
	 * FIFO_DISABLE_CHANNELS is not known): in a held instance it is held again, whatever the
	 * value qgpu read, which a sibling thread may have changed before RM read it.
	 */
	if (node && node->ops == &qgpu_sched_chan_ops && si) {
		mutex_lock(&si->sg->mutex);
		if (!si->applied && !((struct qgpu_sched_chan *)node->payload)->tenant_disabled)
			qgpu_sched_hold_chan(si->sg, node->payload);
		mutex_unlock(&si->sg->mutex);
	}
	if (node && c->cmd == NVRM_CTRL_CMD_NVA06F_GPFIFO_SCHEDULE)
		node = enable ? node->parent : NULL;	/* a channel: its group joins the runlist */
	if (node && node->ops == &qgpu_sched_tsg_ops)
		tsg = node->payload;
	if (!tsg)
		goto out_unlock;
	mutex_lock(&tsg->si->sg->mutex);
	/* a group joining the runlist takes turns: the round robin may no longer be enough */
	if (enable && !tsg->tenant_enabled)
		qgpu_sched_kick(tsg->si->sg);
	tsg->tenant_enabled = enable;
	mutex_unlock(&tsg->si->sg->mutex);
out_unlock:
	mutex_unlock(&t->lock);
	return ret;
}

/**
 * qgpu_sched_tenant_disable() - issue a tenant's own FIFO_DISABLE_CHANNELS, checked
 * @qf: the ctl proxy (its tracker's lock held)
 * @p: qgpu's copy of the list, every client in it the tenant's own (qgpu_disable.c)
 *
 * Each listed channel qgpu tracks remembers what its tenant wants, so that qgpu's release leaves
 * the ones the tenant disabled alone. While the instance is held, an enable is remembered and
 * answered NV_OK without reaching RM: the channels start with the instance's next release.
 *
 * Context: process context; takes the GPU scheduler's mutex and the kernel client's lock.
 * Return: the RM status.
 */
u32 qgpu_sched_tenant_disable(struct qgpu_file *qf, struct nvrm_fifo_disable_channels *p)
{
	struct qgpu_sched_inst *si = qf->inst->sched;
	struct qgpu_rmnode *node;
	struct qgpu_sched_chan *ch;
	u32 i, status = NVRM_OK;

	lockdep_assert_held(&qf->track->lock);
	if (!si)
		return qgpu_sched_disable_call(qf->inst->gpu, p);
	mutex_lock(&si->sg->mutex);
	for (i = 0; i < p->num_channels; i++) {
		node = qgpu_rmtrack_find(qf->track, p->hclient_list[i], p->hchannel_list[i]);
		if (!node || node->ops != &qgpu_sched_chan_ops)
			continue;
		ch = node->payload;
		ch->tenant_disabled = p->disable;
	}
	if (p->disable || si->applied)
		status = qgpu_sched_disable_call(qf->inst->gpu, p);
	mutex_unlock(&si->sg->mutex);
	return status;
}

static bool qgpu_is_usermode_class(u32 hclass)
{
	switch (hclass) {
	case NVRM_CLASS_VOLTA_USERMODE_A:
	case NVRM_CLASS_TURING_USERMODE_A:
	case NVRM_CLASS_AMPERE_USERMODE_A:
	case NVRM_CLASS_HOPPER_USERMODE_A:
	case NVRM_CLASS_BLACKWELL_USERMODE_A:
		return true;
	default:
		return false;
	}
}

/**
 * qgpu_sched_map_memory() - RM_MAP_MEMORY succeeded: remember a doorbell mapping
 * @qf: the ctl proxy
 * @pre: the parameters as qgpu read them before forwarding (what RM mapped where the call was
 *	sealed)
 *
 * When the object is a usermode object, the GPU proxy named by the fd will map the doorbell:
 * its mmap is wrapped (qgpu_vma.c).
 */
void qgpu_sched_map_memory(struct qgpu_file *qf, const struct nvrm_nvos33_with_fd *pre)
{
	struct qgpu_rmtrack *t = qf->track;
	struct qgpu_rmnode *node;
	struct qgpu_file *target;
	u32 hclass = 0;
	struct fd f;

	if (!t)
		return;
	mutex_lock(&t->lock);
	node = qgpu_rmtrack_find(t, pre->params.hclient, pre->params.hmemory);
	if (node)
		hclass = node->hclass;
	mutex_unlock(&t->lock);
	if (!qgpu_is_usermode_class(hclass))
		return;
	f = fdget(pre->fd);
	if (!f.file)
		return;
	if (f.file->f_op == &qgpu_fops) {
		target = f.file->private_data;
		if (target->inst == qf->inst && target->node == QGPU_NODE_GPU)
			WRITE_ONCE(target->doorbell, true);
	}
	fdput(f);
}

/* sysfs: GPU knobs */

static struct qgpu_sched_gpu *to_sg(struct device *dev)
{
	return container_of(dev, struct qgpu_gpu, dev)->sched;
}

static ssize_t policy_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", qgpu_policy_name(READ_ONCE(to_sg(dev)->sc.policy)));
}

static ssize_t policy_store(struct device *dev, struct device_attribute *attr, const char *buf,
			    size_t count)
{
	struct qgpu_sched_gpu *sg = to_sg(dev);
	enum qgpu_policy policy, old;
	struct qgpu_instance *inst;
	char detail[40];
	u32 sum = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (qgpu_policy_parse(buf, count, &policy))
		return -EINVAL;
	mutex_lock(&qgpu_lock);
	list_for_each_entry(inst, &sg->gpu->instances, gpu_link)
		if (inst->state != QGPU_INST_REMOVED)
			sum += inst->settings.core;
	if (!qgpu_sc_admit(policy, sum, 0)) {
		mutex_unlock(&qgpu_lock);
		return -EINVAL;
	}
	spin_lock(&sg->lock);
	old = sg->sc.policy;
	WRITE_ONCE(sg->sc.policy, policy);
	sg->sc.owner = NULL;
	spin_unlock(&sg->lock);
	mutex_unlock(&qgpu_lock);
	qgpu_sched_kick(sg);
	if (old != policy) {
		snprintf(detail, sizeof(detail), "%s -> %s", qgpu_policy_name(old),
			 qgpu_policy_name(policy));
		qgpu_sched_event(sg, "policy_change", NULL, detail);
	}
	return count;
}
static DEVICE_ATTR_RW(policy);

static ssize_t timeslice_us_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_sg(dev)->timeslice_us));
}

static ssize_t timeslice_us_store(struct device *dev, struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct qgpu_sched_gpu *sg = to_sg(dev);
	struct qgpu_sched_inst *si;
	struct qgpu_sched_tsg *tsg;
	u32 us;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (kstrtou32(buf, 10, &us) || !us || us > QGPU_TIMESLICE_MAX_US)
		return -EINVAL;
	mutex_lock(&sg->mutex);
	WRITE_ONCE(sg->timeslice_us, us);
	list_for_each_entry(si, &sg->insts, link)
		list_for_each_entry(tsg, &si->tsgs, link)
			qgpu_sched_tsg_timeslice(tsg->hdup, us);
	mutex_unlock(&sg->mutex);
	return count;
}
static DEVICE_ATTR_RW(timeslice_us);

static ssize_t period_us_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct qgpu_sched_gpu *sg = to_sg(dev);
	u64 ns;

	spin_lock(&sg->lock);
	ns = sg->sc.base_period_ns;
	spin_unlock(&sg->lock);
	return sysfs_emit(buf, "%llu\n", ns / NSEC_PER_USEC);
}

/*
 * The scheduling period: each instance's share of it, and the longest a waking instance waits for
 * a window (under fixed-share, the longest exclusive window). Longer
 * periods switch less often; on a real GPU each switch costs the controls' latency (1.1-2.3 ms
 * for an enable and a disable on an H200 with GSP 580), so short turns come out long.
 */
static ssize_t period_us_store(struct device *dev, struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct qgpu_sched_gpu *sg = to_sg(dev);
	u64 us;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (kstrtou64(buf, 10, &us) || us < QGPU_SC_PERIOD_MIN_NS / NSEC_PER_USEC ||
	    us > QGPU_SC_PERIOD_MAX_NS / NSEC_PER_USEC)
		return -EINVAL;
	spin_lock(&sg->lock);
	sg->sc.base_period_ns = us * NSEC_PER_USEC;
	spin_unlock(&sg->lock);
	qgpu_sched_kick(sg);
	return count;
}
static DEVICE_ATTR_RW(period_us);

static ssize_t utilization_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct qgpu_sched_gpu *sg = to_sg(dev);
	u64 now = qgpu_sched_now();
	u32 pm;

	spin_lock(&sg->lock);
	qgpu_sc_account(&sg->sc, sg->v, sg->n, now);
	pm = qgpu_sc_util_permille(&sg->sc, now);
	spin_unlock(&sg->lock);
	return sysfs_emit(buf, "%u\n", (pm + 5) / 10);
}
static DEVICE_ATTR_RO(utilization);

static ssize_t controls_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", READ_ONCE(to_sg(dev)->sc.inert) ? "inert" : "effective");
}
static DEVICE_ATTR_RO(controls);

static ssize_t gp_get_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	static const char *const names[] = {
		[QGPU_GP_GET_UNKNOWN] = "unknown",
		[QGPU_GP_GET_MOVES] = "moves",
		[QGPU_GP_GET_STILL] = "still",
	};

	return sysfs_emit(buf, "%s\n", names[READ_ONCE(to_sg(dev)->gp_get)]);
}
static DEVICE_ATTR_RO(gp_get);

/*
 * How long a control call of the scheduler's takes on this GPU (the last ones weigh most), in
 * microseconds; 0 before the first. A switch is two: under fixed-share two busy instances switch
 * about once a period, so 2 * control_us / period_us is the part of a CPU that costs.
 */
static ssize_t control_us_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", READ_ONCE(to_sg(dev)->control_ns) / NSEC_PER_USEC);
}
static DEVICE_ATTR_RO(control_us);

static struct attribute *qgpu_sched_gpu_attrs[] = {
	&dev_attr_policy.attr,
	&dev_attr_timeslice_us.attr,
	&dev_attr_period_us.attr,
	&dev_attr_utilization.attr,
	&dev_attr_controls.attr,
	&dev_attr_gp_get.attr,
	&dev_attr_control_us.attr,
	NULL,
};

const struct attribute_group qgpu_sched_gpu_group = {
	.attrs = qgpu_sched_gpu_attrs,
};

/* sysfs: instance knobs and counters */

static ssize_t core_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(qgpu_instance_of(kobj)->settings.core));
}

static ssize_t core_store(struct kobject *kobj, struct kobj_attribute *attr, const char *buf,
			  size_t count)
{
	struct qgpu_instance *inst = qgpu_instance_of(kobj);
	struct qgpu_sched_inst *si = inst->sched;
	u32 core;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (kstrtou32(buf, 10, &core) || core < QGPU_CORE_MIN || core > QGPU_CORE_MAX)
		return -EINVAL;
	mutex_lock(&qgpu_lock);
	if (!qgpu_sched_admit(inst->gpu, inst, core)) {
		mutex_unlock(&qgpu_lock);
		return -EINVAL;
	}
	WRITE_ONCE(inst->settings.core, core);
	spin_lock(&si->sg->lock);
	si->sc.core = core;
	spin_unlock(&si->sg->lock);
	mutex_unlock(&qgpu_lock);
	qgpu_sched_kick(si->sg);
	return count;
}

static struct kobj_attribute qgpu_attr_core = __ATTR_RW(core);

static ssize_t class_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct qgpu_instance *inst = qgpu_instance_of(kobj);

	return sysfs_emit(buf, "%s\n", qgpu_class_name(READ_ONCE(inst->settings.cls)));
}

static ssize_t class_store(struct kobject *kobj, struct kobj_attribute *attr, const char *buf,
			   size_t count)
{
	struct qgpu_instance *inst = qgpu_instance_of(kobj);
	struct qgpu_sched_inst *si = inst->sched;
	enum qgpu_class cls;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (sysfs_streq(buf, "online"))
		cls = QGPU_CLASS_ONLINE;
	else if (sysfs_streq(buf, "offline"))
		cls = QGPU_CLASS_OFFLINE;
	else
		return -EINVAL;
	mutex_lock(&qgpu_lock);
	WRITE_ONCE(inst->settings.cls, cls);
	spin_lock(&si->sg->lock);
	si->sc.cls = cls;
	spin_unlock(&si->sg->lock);
	mutex_unlock(&qgpu_lock);
	qgpu_sched_kick(si->sg);
	return count;
}

static struct kobj_attribute qgpu_attr_class = __ATTR_RW(class);

/* Read counters of @kobj's instance, brought up to date. */
static void qgpu_sched_counters(struct kobject *kobj, u64 *gpu_time, u64 *throttled, u32 *pm)
{
	struct qgpu_sched_inst *si = qgpu_instance_of(kobj)->sched;
	struct qgpu_sched_gpu *sg = si->sg;
	u64 now = qgpu_sched_now();

	spin_lock(&sg->lock);
	if (!list_empty(&si->link))
		qgpu_sc_account(&sg->sc, sg->v, sg->n, now);
	*gpu_time = si->sc.gpu_time_ns;
	*throttled = si->sc.throttled_ns;
	*pm = qgpu_sc_share_permille(&sg->sc, &si->sc, now);
	spin_unlock(&sg->lock);
}

static ssize_t gpu_time_ns_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	u64 g, t;
	u32 pm;

	qgpu_sched_counters(kobj, &g, &t, &pm);
	return sysfs_emit(buf, "%llu\n", g);
}

static struct kobj_attribute qgpu_attr_gpu_time_ns = __ATTR_RO(gpu_time_ns);

static ssize_t throttled_ns_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	u64 g, t;
	u32 pm;

	qgpu_sched_counters(kobj, &g, &t, &pm);
	return sysfs_emit(buf, "%llu\n", t);
}

static struct kobj_attribute qgpu_attr_throttled_ns = __ATTR_RO(throttled_ns);

static ssize_t share_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	u64 g, t;
	u32 pm;

	qgpu_sched_counters(kobj, &g, &t, &pm);
	return sysfs_emit(buf, "%u.%u\n", pm / 10, pm % 10);
}

static struct kobj_attribute qgpu_attr_share = __ATTR_RO(share);

static ssize_t preemptions_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct qgpu_sched_inst *si = qgpu_instance_of(kobj)->sched;
	u64 n;

	mutex_lock(&si->sg->mutex);
	n = si->preemptions;
	mutex_unlock(&si->sg->mutex);
	return sysfs_emit(buf, "%llu\n", n);
}

static struct kobj_attribute qgpu_attr_preemptions = __ATTR_RO(preemptions);

static struct attribute *qgpu_sched_inst_attrs[] = {
	&qgpu_attr_core.attr,
	&qgpu_attr_class.attr,
	&qgpu_attr_gpu_time_ns.attr,
	&qgpu_attr_throttled_ns.attr,
	&qgpu_attr_preemptions.attr,
	&qgpu_attr_share.attr,
	NULL,
};

const struct attribute_group qgpu_sched_inst_group = {
	.attrs = qgpu_sched_inst_attrs,
};
