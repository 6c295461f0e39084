/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The share arithmetic of qgpu's compute scheduler: who may run now, and until when. Pure (builds
 * in the kernel and in the user-space unit tests, see kmod/nvrm/nvrm_types.h): no locks, no
 * allocation, no clock; the caller passes the time and holds whatever protects the state.
 */
#ifndef QGPU_SCHED_CORE_H
#define QGPU_SCHED_CORE_H

#include "nvrm/nvrm_types.h"
#include "qgpu_create_parse.h"

/**
 * enum qgpu_policy - how a GPU shares its time among the instances of one class
 * @QGPU_POLICY_BEST_EFFORT: no per-instance limit; the engine's round robin shares
 * @QGPU_POLICY_FIXED_SHARE: each instance gets its core percent and never more
 * @QGPU_POLICY_BURST_SHARE: each instance is guaranteed its core percent; what is left idle
 *	goes to the busy ones
 * @QGPU_POLICIES: how many
 */
enum qgpu_policy {
	QGPU_POLICY_BEST_EFFORT,
	QGPU_POLICY_FIXED_SHARE,
	QGPU_POLICY_BURST_SHARE,
	QGPU_POLICIES,
};

#define QGPU_SC_PERIOD_NS	10000000ull	/* the scheduling period: 10 ms (period_us)... */
#define QGPU_SC_PERIOD_PER_INST_NS 2000000ull	/* ...or 2 ms per instance, if longer */
/*
 * period_us may be set from 1 ms to 1 s. Under fixed-share the longest exclusive window at once is
 * one period (the knob's, not lengthened per instance): a larger budget is used in several turns.
 * Under burst-share a window lasts its budget until another instance wakes, and then at most one
 * period more. Either way a waking instance waits at most that long.
 */
#define QGPU_SC_PERIOD_MIN_NS	1000000ull
#define QGPU_SC_PERIOD_MAX_NS	1000000000ull
/* a ring keeps an instance active for this much GPU time */
#define QGPU_SC_ACTIVE_NS	50000000ull
/* the most unused budget carried into the next period */
#define QGPU_SC_MIN_WINDOW_NS	200000ull
/* controls inert: how often budgets are brought up to date from the estimate of engine use */
#define QGPU_SC_SAMPLE_NS	2000000ull
/* controls inert: the most overrun carried (repaid over later periods)... */
#define QGPU_SC_MAX_DEBT_NS	1000000000ll
/* ...and the most budget a busy instance could not use (the round robin gave it less) */
#define QGPU_SC_MAX_CREDIT_NS	100000000ll
/* relaxed (the engine's round robin meets every guarantee): how often to look again */
#define QGPU_SC_RELAXED_NS	100000000ull
#define QGPU_SC_BUCKETS		10		/* share over the last second: 10 buckets... */
#define QGPU_SC_BUCKET_NS	100000000ull	/* ...of 100 ms */

/**
 * struct qgpu_sc_inst - one instance as the share arithmetic sees it
 * @core: guaranteed (fixed-share: allowed) percent, 1..100
 * @cls: its class
 * @active_ns: GPU time it may still get before it counts as idle; a ring (work submitted), or
 *	work seen queued in its channels, refills it to QGPU_SC_ACTIVE_NS. It only runs down
 *	while the instance may run, so an instance held with work queued stays active.
 * @budget_ns: what is left of its window in the current period (may be negative: an overrun,
 *	repaid in the next period)
 * @run: the decision: may run (RUN) or is held (HOLD)
 * @woke: it became active and has not run since
 * @groups_busy: its channel groups that had work over the last sample (the caller's estimate
 *	from their GP_GET/GP_PUT); used only while the GPU's controls are inert
 * @groups_part: of @groups_busy, those whose work ran dry or arrived within the sample: taken
 *	as busy for half of it
 * @groups_work: its channel groups on the runlist with work queued or running at the last
 *	sample, whether the engine has seen it yet or not: the turns it takes in the engine's
 *	round robin when it may run. Read from tenant memory, so it only ever decides about this
 *	instance's own guarantee.
 * @groups_rr: its channel groups on the runlist while it may run (the ones its tenant
 *	scheduled, idle or not): the most turns it can take. qgpu's own count.
 * @rr_unequal: its tenant set a timeslice or interleave level of its own on one of its groups:
 *	its turns in the round robin are not the same length as the others'
 * @gpu_time_ns: GPU time it was allowed while active; shared fairly when several ran at once
 * @throttled_ns: time it was held while active
 * @bucket: @gpu_time_ns per QGPU_SC_BUCKET_NS bucket, for the share over the last second
 */
struct qgpu_sc_inst {
	u32 core;
	enum qgpu_class cls;
	s64 active_ns;
	s64 budget_ns;
	bool run;
	bool woke;
	u32 groups_busy;
	u32 groups_part;
	u32 groups_work;
	u32 groups_rr;
	bool rr_unequal;
	u64 gpu_time_ns;
	u64 throttled_ns;
	u64 bucket[QGPU_SC_BUCKETS];
};

/**
 * struct qgpu_sc - one GPU's scheduler state
 * @policy: its policy
 * @inert: held channel groups were seen to keep running: the controls do not take effect. Then
 *	fixed-share cannot own exclusive windows: every instance pays its estimated engine use
 *	(struct qgpu_sc_inst.groups_busy, the engine's round robin assumed) and may submit work
 *	only while its budget is positive; overruns carry into later periods.
 * @base_period_ns: the period_us knob (QGPU_SC_PERIOD_NS by default): the period with few
 *	instances, and the longest a waking instance waits for a window (under fixed-share the
 *	longest exclusive window)
 * @period_ns: the period length (@base_period_ns, or QGPU_SC_PERIOD_PER_INST_NS per instance if
 *	longer)
 * @period_end: when the current period ends (absolute ns); 0 before the first decision
 * @owner: the instance owning the current exclusive window, or NULL
 * @window_end: when that window ends at the latest (its budget may end it earlier)
 * @joint_groups: burst-share with no owner: the groups of the instances owed time (eligible),
 *	which run together, each paying its turns of their round robin; 0 when there is no such
 *	joint window
 * @joint_end: when that joint window ends at the latest (qgpu_sc_joint_end() in
 *	qgpu_sched_core.c); 0 when there is none
 * @joint_first: burst-share: no exclusive window ran when this period began (a joint window
 *	did, or everyone of a class), so a joint window goes on first, before any exclusive one,
 *	until it ends
 * @cursor: the last instance that owned a window: the round robin goes on after it, across
 *	periods, so that late windows do not always cut the same instance short
 * @last: when the state was last brought up to date (absolute ns); 0 before the first time
 * @relaxed: the last decision found that the engine's round robin alone gives every instance
 *	with work its guarantee (or there is none: best-effort): nothing is held for the shares
 *	(only for the classes), no windows, and the next decision is due QGPU_SC_RELAXED_NS later
 * @rr_groups: the groups that may take turns in the round robin at that decision (under
 *	burst-share; 0 under best-effort)
 * @bucket_start: when the current share bucket started
 * @bucket_idx: the current share bucket
 * @busy_bucket: per bucket, time any instance was allowed to run while active (utilization)
 */
struct qgpu_sc {
	enum qgpu_policy policy;
	bool inert;
	u64 base_period_ns;
	u64 period_ns;
	u64 period_end;
	struct qgpu_sc_inst *owner;
	u64 window_end;
	u32 joint_groups;
	u64 joint_end;
	bool joint_first;
	struct qgpu_sc_inst *cursor;
	u64 last;
	bool relaxed;
	u32 rr_groups;
	u64 bucket_start;
	unsigned int bucket_idx;
	u64 busy_bucket[QGPU_SC_BUCKETS];
};

const char *qgpu_policy_name(enum qgpu_policy policy);
int qgpu_policy_parse(const char *s, size_t len, enum qgpu_policy *out);
bool qgpu_sc_admit(enum qgpu_policy policy, u32 sum_others, u32 core);
void qgpu_sc_init(struct qgpu_sc *sc);
void qgpu_sc_inst_init(struct qgpu_sc_inst *i, u32 core, enum qgpu_class cls);
bool qgpu_sc_ring(const struct qgpu_sc *sc, struct qgpu_sc_inst *i);
void qgpu_sc_queued(struct qgpu_sc_inst *i);

static inline bool qgpu_sc_active(const struct qgpu_sc_inst *i)
{
	return i->active_ns > 0;
}

void qgpu_sc_account(struct qgpu_sc *sc, struct qgpu_sc_inst *const *v, unsigned int n, u64 now);
u64 qgpu_sc_decide(struct qgpu_sc *sc, struct qgpu_sc_inst *const *v, unsigned int n, u64 now);
void qgpu_sc_forget(struct qgpu_sc *sc, const struct qgpu_sc_inst *i);
u32 qgpu_sc_share_permille(const struct qgpu_sc *sc, const struct qgpu_sc_inst *i, u64 now);
u32 qgpu_sc_util_permille(const struct qgpu_sc *sc, u64 now);
unsigned int qgpu_sc_issue_split(unsigned int n,
				 bool (*issue)(void *ctx, unsigned int lo, unsigned int len),
				 void *ctx);

#endif /* QGPU_SCHED_CORE_H */
