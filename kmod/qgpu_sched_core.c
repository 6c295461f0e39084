// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: the share arithmetic of the compute scheduler (see qgpu_sched_core.h).
 *
 * The model: per GPU a period (10 ms). At each period start every instance gets a budget of
 * core percent of the period, plus what it overran last period (negative) or a small leftover
 * (positive, at most QGPU_SC_MIN_WINDOW_NS). Online instances come first: offline ones are held
 * while some online instance may run and has work (is active); the time no online instance
 * may use goes to the offline ones.
 *
 * Under fixed-share the instances own exclusive windows in turn, each until its budget is spent;
 * then the GPU is left idle until the period ends. While an active online instance has budget
 * left only active online instances own windows; once none has, every instance with budget left
 * does, offline ones and idle online ones included. So offline work runs in the part of the
 * period the online budgets do not cover, up to its own core percent. Idle instances get their
 * windows too: "idle" is only qgpu's guess (no ring for a while), and an instance with work
 * queued and no reason to ring again must not be held for ever.
 *
 * Under burst-share only active instances own windows; when no active instance has budget left,
 * every taking part instance runs at once (the engine's round robin shares that time), idle ones
 * included, for the same reason. While an online instance is active only online instances take
 * part (online may burst into all of the GPU, so offline ones get only what online ones leave
 * idle); otherwise everyone does. An instance that wakes with budget left takes the next window:
 * at once when the GPU is in that shared phase, else when the current window ends (at most core
 * percent of a period later). Under best-effort every taking part instance runs, with the same
 * rule for classes.
 *
 * Under burst-share an exclusive window is only for an instance that needs one: the instances owed
 * time (active, with budget) that a round robin of all their groups would give their budgets by
 * the period end run together instead, in a joint window, each paying its turns of it (its groups
 * with work over all their groups: at least what it got); instances that have had their budget
 * are held meanwhile. Only the others, and instances seen without work, own exclusive windows.
 * One instance of 37 % among 63 of 1 %, all busy, then costs a few windows a period and one
 * joint window, not 64 windows; an instance that wakes and that the joint window serves runs
 * when the current window ends. A period that begins while no exclusive window runs begins with
 * the joint window, and the windows of its own come after it: the period boundary switches
 * nothing, and that GPU switches once a period (A B | B A), where each switch is a control call
 * of about a millisecond that RM spins a CPU for on a real GPU. A joint window ends for all its
 * members whose budgets end within QGPU_SC_MIN_WINDOW_NS of turns of each other, in one hold.
 *
 * The engine's own round robin often meets the policy already: it gives every channel group with
 * work an equal turn, so an instance gets at least its groups with work over all the groups that
 * may take turns. When that is at least its core percent for every instance with work (and under
 * best-effort, which guarantees nothing), the GPU is relaxed: nothing is held but what the classes
 * hold, there are no windows, and the scheduler only looks again every QGPU_SC_RELAXED_NS, or at
 * once when a ring, a knob or a new group may change the answer. The count of groups that may
 * take turns is every group on the runlist of the instances that may run, idle or not: an idle
 * group may get work at any moment, and what a group has queued is read from tenant memory, which
 * may say anything; so that reading only decides about the instance's own guarantee. A group whose
 * tenant gave it a timeslice or interleave level of its own takes longer turns: no relaxing then.
 *
 * When the controls are inert (held groups keep running what they have queued), exclusive windows
 * mean nothing: the only lever is the doorbell, which stops new work, not queued work. Fixed-share
 * then charges every instance its estimated use of the engine (its busy groups' part of the
 * round robin, sampled by the caller) and lets an instance submit only while its budget is
 * positive; what it overran while its queue drained is carried, up to QGPU_SC_MAX_DEBT_NS, and
 * repaid by being held in later periods. The shares then hold on average, off by at most the
 * work an instance had queued when it was cut off, spread over the periods that repay it.
 */
#include "qgpu_sched_core.h"

#ifdef __KERNEL__
#include <linux/math64.h>
#define qgpu_sc_div(a, b)	div64_u64((a), (b))
#else
#define qgpu_sc_div(a, b)	((a) / (b))
#endif

static const char *const qgpu_policy_names[QGPU_POLICIES] = {
	[QGPU_POLICY_BEST_EFFORT] = "best-effort",
	[QGPU_POLICY_FIXED_SHARE] = "fixed-share",
	[QGPU_POLICY_BURST_SHARE] = "burst-share",
};

/**
 * qgpu_policy_name() - the sysfs spelling of a policy
 * @policy: the policy
 *
 * Return: its name, "?" if out of range.
 */
const char *qgpu_policy_name(enum qgpu_policy policy)
{
	return (unsigned int)policy < QGPU_POLICIES ? qgpu_policy_names[policy] : "?";
}

/**
 * qgpu_policy_parse() - a policy name as written to sysfs (one trailing newline allowed)
 * @s: the text
 * @len: its length
 * @out: the policy
 *
 * Return: 0 or -EINVAL.
 */
int qgpu_policy_parse(const char *s, size_t len, enum qgpu_policy *out)
{
	unsigned int p;

	if (len && s[len - 1] == '\n')
		len--;
	for (p = 0; p < QGPU_POLICIES; p++) {
		if (strlen(qgpu_policy_names[p]) == len && !memcmp(s, qgpu_policy_names[p], len)) {
			*out = p;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * qgpu_sc_admit() - may an instance have @core percent next to the others' guarantees?
 * @policy: the GPU's policy
 * @sum_others: the other instances' core percent, added up
 * @core: the instance's
 *
 * Return: true under best-effort (core is no guarantee there) or when the sum stays <= 100.
 */
bool qgpu_sc_admit(enum qgpu_policy policy, u32 sum_others, u32 core)
{
	return policy == QGPU_POLICY_BEST_EFFORT || sum_others + core <= QGPU_CORE_MAX;
}

/**
 * qgpu_sc_init() - a GPU's state: best-effort, the default period, nothing decided yet
 * @sc: the state
 */
void qgpu_sc_init(struct qgpu_sc *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->policy = QGPU_POLICY_BEST_EFFORT;
	sc->base_period_ns = QGPU_SC_PERIOD_NS;
	sc->period_ns = QGPU_SC_PERIOD_NS;
}

/**
 * qgpu_sc_inst_init() - a new instance: idle, held until the first decision
 * @i: the instance
 * @core: its core percent
 * @cls: its class
 */
void qgpu_sc_inst_init(struct qgpu_sc_inst *i, u32 core, enum qgpu_class cls)
{
	memset(i, 0, sizeof(*i));
	i->core = core;
	i->cls = cls;
}

/**
 * qgpu_sc_ring() - the instance submitted work
 * @sc: its GPU
 * @i: the instance
 *
 * Return: true if the scheduler should decide again now: the instance was idle, or the GPU is
 * relaxed, the instance had no work at the last sample, and one turn of the round robin's would
 * not give it its guarantee.
 */
bool qgpu_sc_ring(const struct qgpu_sc *sc, struct qgpu_sc_inst *i)
{
	bool woke = !qgpu_sc_active(i);

	i->active_ns = QGPU_SC_ACTIVE_NS;
	if (woke) {
		i->woke = true;
		return true;
	}
	return sc->relaxed && !i->groups_work &&
	       (u64)i->core * sc->rr_groups > QGPU_CORE_MAX;
}

/**
 * qgpu_sc_queued() - a sample of the instance's channels found work queued
 * @i: the instance
 *
 * Active as after a ring. The caller decides right after, so a wake needs no kick; it is still
 * a wake for the joint window (@woke).
 */
void qgpu_sc_queued(struct qgpu_sc_inst *i)
{
	if (!qgpu_sc_active(i))
		i->woke = true;
	i->active_ns = QGPU_SC_ACTIVE_NS;
}

/* Advance the share buckets to @now, clearing the ones skipped. */
static void qgpu_sc_rotate(struct qgpu_sc *sc, struct qgpu_sc_inst *const *v, unsigned int n,
			   u64 now)
{
	unsigned int k, steps = 0;

	if (!sc->bucket_start)
		sc->bucket_start = now;
	while (now - sc->bucket_start >= QGPU_SC_BUCKET_NS && steps < QGPU_SC_BUCKETS) {
		sc->bucket_idx = (sc->bucket_idx + 1) % QGPU_SC_BUCKETS;
		sc->bucket_start += QGPU_SC_BUCKET_NS;
		sc->busy_bucket[sc->bucket_idx] = 0;
		for (k = 0; k < n; k++)
			v[k]->bucket[sc->bucket_idx] = 0;
		steps++;
	}
	if (now - sc->bucket_start >= QGPU_SC_BUCKET_NS)
		sc->bucket_start = now;	/* idle for more than a second: all buckets are clear */
}

/* Of @i's busy groups, those busy only part of the sample. */
static u32 qgpu_sc_part(const struct qgpu_sc_inst *i)
{
	return i->groups_part < i->groups_busy ? i->groups_part : i->groups_busy;
}

/**
 * qgpu_sc_engine_part() - each busy group's part of the engine over a sample, round robin assumed
 * @elapsed: the sample's length
 * @whole: groups busy all of it (known work when it started and when it ended)
 * @part: groups busy part of it (their work ran dry, or arrived, within it)
 * @per_whole: engine time of each of @whole
 * @per_part: engine time of each of @part
 *
 * A group busy part of the sample is taken as busy half of it, at a random place, so it meets
 * the others (@whole, and half of the rest of @part, on average) then: half of the sample over
 * one more than those. Counting it busy all of it instead, as before, overcharged an instance
 * each time its queue ran dry or filled: the small one of a fixed-share pair, whose gate closes
 * often, by about a point of the GPU (30/70: charged 29.85 %, engine 28.95 %). The rest of the
 * sample goes to @whole in equal parts: the engine was busy throughout when any was.
 */
static void qgpu_sc_engine_part(u64 elapsed, u32 whole, u32 part, u64 *per_whole, u64 *per_part)
{
	*per_part = part ? qgpu_sc_div(elapsed, 2ull * whole + part + 1) : 0;
	*per_whole = whole ? qgpu_sc_div(elapsed - *per_part * part, whole) : 0;
}

/**
 * qgpu_sc_account() - charge the time since the last call to the instances
 * @sc: the GPU
 * @v: its instances
 * @n: how many
 * @now: the time (ns, monotonic)
 *
 * Time an instance was allowed to run while active is its GPU time (divided evenly when
 * several were); it runs down its activity. The owner of an exclusive window pays the whole
 * time from its budget. Time an instance was held while active is throttled time. Under
 * fixed-share with inert controls every instance instead pays, and is credited GPU time for, its
 * part of the engine by @groups_busy, held or not (qgpu_sc_engine_part()).
 */
void qgpu_sc_account(struct qgpu_sc *sc, struct qgpu_sc_inst *const *v, unsigned int n, u64 now)
{
	bool estimate = sc->inert && sc->policy == QGPU_POLICY_FIXED_SHARE;
	unsigned int k, running = 0, busy = 0, part = 0;
	u64 elapsed, each, per_whole = 0, per_part = 0;

	if (!sc->last || now <= sc->last) {
		sc->last = sc->last ?: now;
		qgpu_sc_rotate(sc, v, n, now);
		return;
	}
	elapsed = now - sc->last;
	sc->last = now;
	for (k = 0; k < n; k++) {
		if (v[k]->run && qgpu_sc_active(v[k]))
			running++;
		busy += v[k]->groups_busy;
		part += qgpu_sc_part(v[k]);
	}
	each = running ? qgpu_sc_div(elapsed, running) : 0;
	if (estimate)
		qgpu_sc_engine_part(elapsed, busy - part, part, &per_whole, &per_part);
	for (k = 0; k < n; k++) {
		struct qgpu_sc_inst *i = v[k];

		if (estimate) {
			/* held or not, what it had queued ran: it pays its part of the engine */
			u32 p = qgpu_sc_part(i);
			u64 used = per_whole * (i->groups_busy - p) + per_part * p;

			i->budget_ns -= (s64)used;
			i->gpu_time_ns += used;
			i->bucket[sc->bucket_idx] += used;
		} else if (i->run && i == sc->owner) {
			i->budget_ns -= (s64)elapsed;
		} else if (i->run && sc->joint_groups) {
			/* its turns of the joint window's round robin: at least what it got */
			i->budget_ns -= (s64)qgpu_sc_div(elapsed * i->groups_work,
							 sc->joint_groups);
		}
		if (!qgpu_sc_active(i))
			continue;
		if (i->run) {
			if (!estimate) {
				i->gpu_time_ns += each;
				i->bucket[sc->bucket_idx] += each;
			}
			i->active_ns -= (s64)each;
		} else {
			i->throttled_ns += elapsed;
		}
	}
	if (estimate ? busy : running)
		sc->busy_bucket[sc->bucket_idx] += elapsed;
	qgpu_sc_rotate(sc, v, n, now);
}

/* A new period: budgets of core percent, plus the carry of the last one. */
static void qgpu_sc_new_period(struct qgpu_sc *sc, struct qgpu_sc_inst *const *v, unsigned int n,
			       u64 now)
{
	unsigned int k;

	/* Many instances: a longer period, so that windows stay worth a switch. */
	sc->period_ns = sc->base_period_ns;
	if ((u64)n * QGPU_SC_PERIOD_PER_INST_NS > sc->period_ns)
		sc->period_ns = (u64)n * QGPU_SC_PERIOD_PER_INST_NS;
	if (!sc->period_end || now - sc->period_end >= sc->period_ns)
		sc->period_end = now + sc->period_ns;	/* first, or far behind: start afresh */
	else
		sc->period_end += sc->period_ns;
	for (k = 0; k < n; k++) {
		struct qgpu_sc_inst *i = v[k];
		s64 share = (s64)qgpu_sc_div((u64)i->core * sc->period_ns, 100);
		s64 carry = i->budget_ns, debt = share, credit = QGPU_SC_MIN_WINDOW_NS;

		/*
		 * Inert controls: queued work overruns by more than a period, so all of it is
		 * repaid; and an instance that had work but got less than its budget (the round
		 * robin shared the engine with queued work of instances already over theirs) keeps
		 * what it could not use. An idle one loses it, as with effective controls.
		 */
		if (sc->inert) {
			debt = QGPU_SC_MAX_DEBT_NS;
			if (i->groups_busy)
				credit = QGPU_SC_MAX_CREDIT_NS;
		}
		if (carry > credit)
			carry = credit;
		if (carry < -debt)
			carry = -debt;
		i->budget_ns = share + carry;
	}
	/* a joint window, or everyone of a class, ran (not relaxed: that needs windows at once) */
	sc->joint_first = sc->policy == QGPU_POLICY_BURST_SHARE && !sc->owner && !sc->relaxed;
	sc->owner = NULL;
}

/* Does @i take part while @top is the highest class with an active instance? */
static bool qgpu_sc_in_top(const struct qgpu_sc_inst *i, enum qgpu_class top)
{
	return i->cls == top || top == QGPU_CLASS_OFFLINE;
}

/* An online instance with work and budget: while there is one, only such instances own windows. */
static bool qgpu_sc_online_first(const struct qgpu_sc_inst *i)
{
	return i->cls == QGPU_CLASS_ONLINE && qgpu_sc_active(i) && i->budget_ns > 0;
}

/* May @i own a window now? @first: some instance is qgpu_sc_online_first(). */
static bool qgpu_sc_eligible(const struct qgpu_sc *sc, const struct qgpu_sc_inst *i,
			     enum qgpu_class top, bool first)
{
	if (i->budget_ns <= 0)
		return false;
	if (first)
		return qgpu_sc_online_first(i);
	if (sc->policy == QGPU_POLICY_FIXED_SHARE)
		return true;
	return qgpu_sc_in_top(i, top) && qgpu_sc_active(i);
}

/* The decision about @i: may it run? Running, it is no longer waking. */
static void qgpu_sc_set_run(struct qgpu_sc_inst *i, bool run)
{
	i->run = run;
	if (run)
		i->woke = false;
}

/* The most turns @i may take in the round robin: its groups on the runlist, or with work. */
static u32 qgpu_sc_turns(const struct qgpu_sc_inst *i)
{
	return i->groups_rr > i->groups_work ? i->groups_rr : i->groups_work;
}

/*
 * Does eligible @i need an exclusive window: would a round robin of the @owed groups of the
 * instances owed time leave it short of its budget by the period end? Short by up to
 * QGPU_SC_MIN_WINDOW_NS is not short: the next period carries that much. An instance seen without
 * work needs one (it is active: "idle" is a guess, and it pays its window whole). Under fixed-share
 * every window is exclusive.
 */
static bool qgpu_sc_short(const struct qgpu_sc *sc, const struct qgpu_sc_inst *i, u32 owed,
			  u64 now)
{
	if (sc->policy != QGPU_POLICY_BURST_SHARE || !i->groups_work)
		return true;
	if (i->budget_ns <= (s64)QGPU_SC_MIN_WINDOW_NS)
		return false;
	return (u64)(i->budget_ns - QGPU_SC_MIN_WINDOW_NS) * owed >
	       (u64)i->groups_work * (sc->period_end - now);
}

/*
 * Burst-share: does the engine's round robin alone give every instance with work of the taking
 * part ones (@top) its guarantee? Records the groups that may take turns in @sc->rr_groups.
 */
static bool qgpu_sc_rr_meets(struct qgpu_sc *sc, struct qgpu_sc_inst *const *v, unsigned int n,
			     enum qgpu_class top)
{
	unsigned int k;
	u32 total = 0;

	sc->rr_groups = 0;
	for (k = 0; k < n; k++) {
		const struct qgpu_sc_inst *i = v[k];

		/* a held group takes no turns, unless the controls are inert */
		if (!qgpu_sc_in_top(i, top) && !sc->inert)
			continue;
		if (i->rr_unequal)
			return false;
		total += qgpu_sc_turns(i);
	}
	for (k = 0; k < n; k++) {
		const struct qgpu_sc_inst *i = v[k];

		if (qgpu_sc_in_top(i, top) && i->groups_work &&
		    (u64)i->groups_work * QGPU_CORE_MAX < (u64)i->core * total)
			return false;
	}
	sc->rr_groups = total;
	return true;
}

/* Does the class rule hold anyone: is some instance outside @top? */
static bool qgpu_sc_class_held(struct qgpu_sc_inst *const *v, unsigned int n, enum qgpu_class top)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		if (!qgpu_sc_in_top(v[k], top))
			return true;
	return false;
}

/*
 * Relaxed: everyone of @top runs. The next look is QGPU_SC_RELAXED_NS away, or when the activity
 * of a running instance may run out while others are held for their class (then they may run):
 * each running active instance's activity runs down by the time over the running ones.
 */
static u64 qgpu_sc_relax(struct qgpu_sc *sc, struct qgpu_sc_inst *const *v, unsigned int n,
			 enum qgpu_class top, u64 now)
{
	u64 next = now + QGPU_SC_RELAXED_NS;
	unsigned int k, running = 0;
	bool held = false;

	sc->relaxed = true;
	sc->owner = NULL;
	sc->joint_groups = 0;
	sc->joint_first = false;
	for (k = 0; k < n; k++) {
		qgpu_sc_set_run(v[k], qgpu_sc_in_top(v[k], top));
		running += v[k]->run && qgpu_sc_active(v[k]);
		held |= !v[k]->run;
	}
	for (k = 0; k < n && held; k++) {
		u64 out = now + (u64)v[k]->active_ns * running;

		if (v[k]->run && qgpu_sc_active(v[k]) && out < next)
			next = out;
	}
	return next;
}

/* When joint-window member @i has had its budget at its turns; ~0 when @i is no member. */
static u64 qgpu_sc_member_end(const struct qgpu_sc *sc, const struct qgpu_sc_inst *i, u64 now)
{
	if (!i->run || !i->groups_work)
		return ~0ull;
	return now + qgpu_sc_div((u64)(i->budget_ns > 0 ? i->budget_ns : 0) * sc->joint_groups,
				 i->groups_work);
}

/*
 * When the joint window of the members qgpu_sc_decide() just let run ends: when its first member
 * has had its budget (its turns: @sc->joint_groups over its groups with work), or later, when the
 * last of the members whose budgets end within QGPU_SC_MIN_WINDOW_NS of turns of the first has
 * had its own. Members' budgets drift apart by a few turns (groups seen without work pay nothing
 * for a while); they then leave together, in one hold, not a hold each some hundred microseconds
 * apart. Each overruns by at most QGPU_SC_MIN_WINDOW_NS, repaid in the next period like any
 * overrun, the same bound as the credit that the ones cut short would carry.
 */
static u64 qgpu_sc_joint_end(const struct qgpu_sc *sc, struct qgpu_sc_inst *const *v,
			     unsigned int n, u64 now)
{
	u64 first = ~0ull, last = 0, slack;
	unsigned int k;
	u32 most = 1;

	for (k = 0; k < n; k++) {
		u64 end = qgpu_sc_member_end(sc, v[k], now);

		if (end < first)
			first = end;
		if (end != ~0ull && v[k]->groups_work > most)
			most = v[k]->groups_work;
	}
	if (first == ~0ull)
		return first;	/* no member with work: no end but the window's or period's */
	/* (end - first) * groups_work / joint_groups, a member's overrun, stays <= the bound */
	slack = qgpu_sc_div(QGPU_SC_MIN_WINDOW_NS * sc->joint_groups, most);
	for (k = 0; k < n; k++) {
		u64 end = qgpu_sc_member_end(sc, v[k], now);

		if (end <= first + slack && end > last)
			last = end;
	}
	return last;
}

/**
 * qgpu_sc_decide() - decide who may run now
 * @sc: the GPU (brought up to date with qgpu_sc_account() at @now first)
 * @v: its instances, in round-robin order
 * @n: how many
 * @now: the time
 *
 * Sets every instance's @run. Under fixed-share and burst-share one instance owns an exclusive
 * window of its budget, under fixed-share at most one period_us (@sc->base_period_ns) at once,
 * under burst-share at most one period_us from when another instance woke (so that a waking
 * instance waits no longer than that, however long the period), chosen round robin among the
 * eligible ones: while an active online instance has budget, the active online instances with
 * budget; else,
 * under fixed-share, every instance with budget, and under burst-share the active ones with
 * budget of the highest class that has an active instance, and of those only the ones a joint
 * window would leave short (the rest run together in one, when no one owns a window; a period
 * that begins with no window owned begins with that joint window, the short ones in it too). With
 * no owner and no one owed time, fixed-share holds everyone and burst-share runs every instance
 * of that class. Under fixed-share with inert controls there are no windows: every instance with
 * budget runs (online ones first), and the next decision is due within QGPU_SC_SAMPLE_NS.
 * Under best-effort, and under burst-share while
 * the engine's round robin alone gives every instance with work its guarantee (@groups_work,
 * @groups_rr), the GPU is relaxed: every instance of that class runs, no windows.
 *
 * Return: when the next decision is due at the latest (absolute ns): the end of the current
 * window or period, or QGPU_SC_RELAXED_NS away when relaxed. A ring that qgpu_sc_ring() says
 * matters, or a knob change, calls for one earlier.
 */
u64 qgpu_sc_decide(struct qgpu_sc *sc, struct qgpu_sc_inst *const *v, unsigned int n, u64 now)
{
	enum qgpu_class top = QGPU_CLASS_OFFLINE;
	unsigned int k, start = 0;
	struct qgpu_sc_inst *owner;
	bool first = false, waking = false, cut = false, classes_held;
	u32 owed = 0;
	u64 next;

	if (sc->joint_first && now >= sc->joint_end)
		sc->joint_first = false;
	if (!sc->period_end || now >= sc->period_end)
		qgpu_sc_new_period(sc, v, n, now);
	next = sc->period_end;
	for (k = 0; k < n; k++) {
		if (v[k]->cls == QGPU_CLASS_ONLINE && qgpu_sc_active(v[k]))
			top = QGPU_CLASS_ONLINE;
		first |= qgpu_sc_online_first(v[k]);
	}

	/*
	 * Relaxing is only for a GPU where no class is held: holding offline work for online work
	 * needs the decisions on time (with inert controls, each held kernel that still ran would
	 * otherwise halve the online instance's throughput).
	 */
	classes_held = qgpu_sc_class_held(v, n, top);
	if (sc->policy == QGPU_POLICY_BEST_EFFORT && !classes_held) {
		sc->rr_groups = 0;	/* no guarantees: no ring matters but a wake */
		return qgpu_sc_relax(sc, v, n, top, now);
	}
	if (sc->policy == QGPU_POLICY_BURST_SHARE && !classes_held &&
	    qgpu_sc_rr_meets(sc, v, n, top))
		return qgpu_sc_relax(sc, v, n, top, now);
	sc->relaxed = false;
	if (sc->policy == QGPU_POLICY_BEST_EFFORT) {
		sc->owner = NULL;
		sc->joint_groups = 0;
		for (k = 0; k < n; k++)
			qgpu_sc_set_run(v[k], qgpu_sc_in_top(v[k], top));
		return next;
	}

	if (sc->policy == QGPU_POLICY_FIXED_SHARE && sc->inert) {
		/* no exclusive windows: whoever has budget may submit, online first */
		sc->owner = NULL;
		sc->joint_groups = 0;
		for (k = 0; k < n; k++)
			qgpu_sc_set_run(v[k], v[k]->budget_ns > 0 &&
					(!first || qgpu_sc_online_first(v[k])));
		return next < now + QGPU_SC_SAMPLE_NS ? next : now + QGPU_SC_SAMPLE_NS;
	}

	/* burst-share: the groups of the instances owed time, whose round robin may serve them */
	for (k = 0; k < n && sc->policy == QGPU_POLICY_BURST_SHARE; k++)
		if (qgpu_sc_eligible(sc, v[k], top, first))
			owed += qgpu_sc_turns(v[k]);

	/*
	 * The owner keeps its window while it is eligible (so has budget), needs it, and the window
	 * lasts; else the next one in turn that needs one (which may be the same instance again).
	 */
	owner = sc->owner;
	if (owner && (!qgpu_sc_eligible(sc, owner, top, first) || now >= sc->window_end ||
		      !qgpu_sc_short(sc, owner, owed, now)))
		owner = NULL;
	/*
	 * Under burst-share a window lasts its owner's budget, as one window rather than one each
	 * period_us: each switch is a call of about a millisecond on a real GPU, and a decision's
	 * work. Someone else who woke and may run cuts it to period_us from now, so that a wake
	 * waits no longer than under fixed-share, whose windows are at most period_us.
	 */
	for (k = 0; k < n && sc->policy == QGPU_POLICY_BURST_SHARE; k++)
		if (v[k] != owner && v[k]->woke && qgpu_sc_eligible(sc, v[k], top, first))
			cut = true;
	if (owner && cut && sc->window_end > now + sc->base_period_ns)
		sc->window_end = now + sc->base_period_ns;
	/*
	 * An instance that woke and that the joint window serves runs when the current window
	 * ends, before the next exclusive one: a wake waits at most one window.
	 */
	for (k = 0; k < n && !owner && owed; k++) {
		if (!v[k]->woke || !qgpu_sc_eligible(sc, v[k], top, first))
			continue;
		/* ...and a wake the joint window leaves short ends it: its window comes next */
		if (qgpu_sc_short(sc, v[k], owed, now))
			sc->joint_first = false;
		else
			waking = true;
	}
	/*
	 * A joint window that ran when the period began goes on first: the exclusive windows of
	 * the period come after it, so the period boundary switches nothing, and a GPU whose
	 * periods alternate one instance's window and the others' joint window switches once a
	 * period (A B | B A), where each switch costs a call of about a millisecond spun on a CPU
	 * on a real GPU. Those that need windows of their own take part in it meanwhile: what
	 * they get of it comes off their budgets, and the budgets of one period fit in it.
	 */
	if (!owed)
		sc->joint_first = false;
	if (!owner && !waking && !sc->joint_first) {
		/*
		 * Fixed-share: the last window's owner, its budget refilled by a new period, goes
		 * on first (A B | B A | A B ...). That saves a switch a period, and it makes the
		 * others' holds long enough (with two instances, twice the other's window) for a
		 * held group that still runs to show the controls inert: with the 10 ms period,
		 * holds in the same order every period are shorter than the hold grace for most
		 * instances, and a held group's moves fall only into what is left after it.
		 */
		for (k = 0; k < n; k++)
			if (v[k] == sc->cursor)
				start = sc->policy == QGPU_POLICY_FIXED_SHARE ? k : k + 1;
		for (k = 0; k < n && !owner; k++) {
			struct qgpu_sc_inst *i = v[(start + k) % n];

			if (qgpu_sc_eligible(sc, i, top, first) && qgpu_sc_short(sc, i, owed, now))
				owner = i;
		}
		if (owner) {
			bool capped = sc->policy != QGPU_POLICY_BURST_SHARE || cut;
			u64 len = owner->budget_ns;

			if (capped && len > sc->base_period_ns)
				len = sc->base_period_ns;
			sc->window_end = now + len;
			sc->cursor = owner;
		}
	}
	sc->owner = owner;
	/* no owner but some owed time: a joint window of the instances owed it */
	sc->joint_groups = owner ? 0 : owed;
	for (k = 0; k < n; k++) {
		struct qgpu_sc_inst *i = v[k];

		if (owner)
			qgpu_sc_set_run(i, i == owner);
		else if (sc->joint_groups)
			qgpu_sc_set_run(i, qgpu_sc_eligible(sc, i, top, first));
		else
			qgpu_sc_set_run(i, sc->policy == QGPU_POLICY_BURST_SHARE &&
					qgpu_sc_in_top(i, top));
	}
	sc->joint_end = sc->joint_groups ? qgpu_sc_joint_end(sc, v, n, now) : 0;
	if (sc->joint_groups && sc->joint_end < next)
		next = sc->joint_end;
	/* ...or after one window's length, when it went before a member that needs its own */
	if (waking && now + sc->base_period_ns < next)
		next = now + sc->base_period_ns;
	if (owner && sc->window_end < next)
		next = sc->window_end;
	return next;
}

/**
 * qgpu_sc_forget() - an instance leaves the GPU
 * @sc: the GPU
 * @i: the instance (no longer in the array passed to the other calls)
 */
void qgpu_sc_forget(struct qgpu_sc *sc, const struct qgpu_sc_inst *i)
{
	if (sc->owner == i)
		sc->owner = NULL;
	if (sc->cursor == i)
		sc->cursor = NULL;
}

/* The time the buckets cover at @now: the full ones and the current one so far. */
static u64 qgpu_sc_window(const struct qgpu_sc *sc, u64 now)
{
	u64 cur = now > sc->bucket_start ? now - sc->bucket_start : 0;

	if (cur > QGPU_SC_BUCKET_NS)
		cur = QGPU_SC_BUCKET_NS;
	return (QGPU_SC_BUCKETS - 1) * QGPU_SC_BUCKET_NS + cur;
}

static u32 qgpu_sc_permille(const u64 *bucket, u64 window)
{
	u64 sum = 0;
	unsigned int k;

	for (k = 0; k < QGPU_SC_BUCKETS; k++)
		sum += bucket[k];
	if (!window)
		return 0;
	sum = qgpu_sc_div(sum * 1000 + window / 2, window);
	return sum > 1000 ? 1000 : (u32)sum;
}

/**
 * qgpu_sc_share_permille() - an instance's GPU time over the last second, per mille
 * @sc: its GPU (accounted up to about @now)
 * @i: the instance
 * @now: the time
 *
 * Return: 0..1000.
 */
u32 qgpu_sc_share_permille(const struct qgpu_sc *sc, const struct qgpu_sc_inst *i, u64 now)
{
	return qgpu_sc_permille(i->bucket, qgpu_sc_window(sc, now));
}

/**
 * qgpu_sc_util_permille() - time any instance was allowed to run with work, last second
 * @sc: the GPU
 * @now: the time
 *
 * Return: 0..1000.
 */
u32 qgpu_sc_util_permille(const struct qgpu_sc *sc, u64 now)
{
	return qgpu_sc_permille(sc->busy_bucket, qgpu_sc_window(sc, now));
}

/**
 * qgpu_sc_issue_split() - issue a list that is checked whole, splitting what is refused in halves
 * @n: entries in the list
 * @issue: issues entries [@lo, @lo + @len) as one call; returns true when the call was taken
 * @ctx: passed to @issue
 *
 * RM checks a FIFO_DISABLE_CHANNELS list whole before it changes anything, and refuses all of it
 * for one entry it no longer knows. The list goes out once; where it is refused, its halves go,
 * and theirs, until every refused entry has gone alone: about two calls per halving for one bad
 * entry (13 for a list of 64), at most 2n - 1 calls, where sending each entry alone would take n
 * after the first. Depth first, on a fixed stack (a list of up to 2^31 entries fits).
 *
 * Return: the calls made.
 */
unsigned int qgpu_sc_issue_split(unsigned int n,
				 bool (*issue)(void *ctx, unsigned int lo, unsigned int len),
				 void *ctx)
{
	struct {
		unsigned int lo, len;
	} todo[64];
	unsigned int top = 0, calls = 1;

	if (!n || issue(ctx, 0, n) || n < 2)
		return n ? 1 : 0;
	todo[top].lo = n / 2;
	todo[top++].len = n - n / 2;
	todo[top].lo = 0;
	todo[top++].len = n / 2;
	while (top) {
		unsigned int lo = todo[--top].lo, len = todo[top].len;

		calls++;
		if (issue(ctx, lo, len) || len < 2)
			continue;
		todo[top].lo = lo + len / 2;
		todo[top++].len = len - len / 2;
		todo[top].lo = lo;
		todo[top++].len = len / 2;
	}
	return calls;
}
