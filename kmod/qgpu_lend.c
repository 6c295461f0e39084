// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: backend files lent to one forwarded call, so that the real file never enters the
 * tenant's fd table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "qgpu_kretprobe.h"
#include "qgpu_lend.h"

/**
 * DOC: lent files
 *
 * The drivers resolve an fd argument in the calling process's fd table. RM does it in
 * nv_get_file_private(fd, ctl, &os_private) (nv.c; called from escape.c and os.c for
 * REGISTER_FD, RM_MAP_MEMORY, RM_ALLOC_MEMORY and the fd-carrying controls, 525-595), which looks
 * the number up, checks the file is a control node (@ctl) or a GPU node of the driver's, and
 * returns the file's private data, the file itself in *os_private with a reference. nvidia-uvm
 * calls fget() on UVM_MM_INITIALIZE's and UVM_TOOLS_INIT_EVENT_TRACKER's uvmFd itself (uvm.c,
 * uvm_tools.c, 535-595) and checks the file is its own.
 *
 * qgpu places a kretprobe on each: on the backend's nv_get_file_private, and on the kernel's
 * fget. For a call that names one of the tenant's own proxies, qgpu registers the calling task
 * with the real file behind it, under the tenant's own number and the kind of file it is
 * (qgpu_lend_file()); the probe then answers that task's lookup of that number, for a file of
 * that kind, with the real file, whatever the number holds in the fd table meanwhile (the proxy,
 * which the driver would refuse, or anything a sibling thread put there since). The real file
 * never enters the tenant's fd table, where another thread could take it (DOC: fd translation in
 * qgpu_fdxlate.c).
 *
 * Every other lookup passes unchanged, at the cost of one atomic read while nothing is lent.
 * fget() is the whole kernel's, so its probe is armed only while UVM files are lent and for a
 * second after, and costs nothing otherwise; arming and disarming it patch the kernel's text.
 *
 * Where a probe cannot be placed (a kernel without kretprobes, a driver without the symbol, an
 * architecture whose argument registers qgpu does not know), the real file is installed in the
 * tenant's fd table for the call instead. /proc/qgpu/status says which: ``seal_fd:
 * <module>:nv_get_file_private (N missed, M lent)`` and ``seal_uvm_fd: fget (N missed, M
 * lent)``, or ``-``. A missed lookup (no free kretprobe instance) finds the proxy, which the
 * driver refuses: the call fails closed.
 */

/* Guards qgpu_lends; taken by the probes, irqs off. */
static DEFINE_RAW_SPINLOCK(qgpu_lend_lock);
static DEFINE_HASHTABLE(qgpu_lends, 6);
static atomic_t qgpu_lends_in_flight;

/**
 * struct qgpu_lend_probe - one kretprobe that answers lookups of lent files
 * @krp: the kretprobe
 * @symbol: where it is placed
 * @on: placed
 * @lent: lookups it answered with a lent file
 */
struct qgpu_lend_probe {
	struct kretprobe krp;
	char symbol[MODULE_NAME_LEN + sizeof(":nv_get_file_private")];
	bool on;
	atomic64_t lent;
};

static struct qgpu_lend_probe qgpu_lend_rm;
static struct qgpu_lend_probe qgpu_lend_uvm;

/*
 * qgpu_lend_uvm is armed while calls lend UVM files (@qgpu_lend_uvm_users), and disarmed
 * QGPU_LEND_UVM_IDLE after the last: arming and disarming patch the kernel's text and wait for
 * RCU (about 14 ms a pair in the emulated test guest), and processes tend to start in bursts.
 */
static DEFINE_MUTEX(qgpu_lend_uvm_arm_lock);
static unsigned int qgpu_lend_uvm_users;
static bool qgpu_lend_uvm_armed;
#define QGPU_LEND_UVM_IDLE	HZ

static void qgpu_lend_uvm_disarm_idle(struct work_struct *work)
{
	mutex_lock(&qgpu_lend_uvm_arm_lock);
	if (!qgpu_lend_uvm_users && qgpu_lend_uvm_armed) {
		disable_kretprobe(&qgpu_lend_uvm.krp);
		qgpu_lend_uvm_armed = false;
	}
	mutex_unlock(&qgpu_lend_uvm_arm_lock);
}

static DECLARE_DELAYED_WORK(qgpu_lend_uvm_disarm_work, qgpu_lend_uvm_disarm_idle);

/* A lookup the calling task lent a file for: the file (a reference), RM's out-argument. */
struct qgpu_lend_lookup {
	struct file *lent;
	void **os_private;
};

/* The file the calling task lent at @fd for a lookup of @kind, with a reference, or NULL. */
static struct file *qgpu_lend_find(int fd, enum qgpu_lend_kind kind)
{
	struct file *lent = NULL;
	struct qgpu_lend *l;
	unsigned long flags;
	unsigned int i;

	if (!atomic_read(&qgpu_lends_in_flight))
		return NULL;
	raw_spin_lock_irqsave(&qgpu_lend_lock, flags);
	hash_for_each_possible(qgpu_lends, l, node, (unsigned long)current) {
		if (l->task != current)
			continue;
		for (i = 0; i < l->n && !lent; i++)
			if (l->fd[i] == fd && l->kind[i] == kind)
				lent = get_file(l->file[i]);
		break;
	}
	raw_spin_unlock_irqrestore(&qgpu_lend_lock, flags);
	return lent;
}

/*
 * nv_get_file_private(fd, ctl, os_private)'s entry: a lookup the calling task lent a file for
 * (ctl is an NvBool: one byte) goes on to the return; every other one passes (1).
 */
static int qgpu_lend_rm_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct qgpu_lend_lookup *call = (struct qgpu_lend_lookup *)ri->data;
	bool ctl = (u8)regs_get_kernel_argument(regs, 1);

	call->lent = qgpu_lend_find((int)regs_get_kernel_argument(regs, 0),
				    ctl ? QGPU_LEND_CTL : QGPU_LEND_GPU);
	call->os_private = (void **)regs_get_kernel_argument(regs, 2);
	return call->lent ? 0 : 1;
}

/*
 * Its return: the lent file is the answer, whatever the number holds in the fd table (a proxy,
 * which RM refuses, or anything a sibling thread put there since qgpu looked).
 */
static int qgpu_lend_rm_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct qgpu_lend_lookup *call = (struct qgpu_lend_lookup *)ri->data;
	struct file *found = NULL;

	if (regs_return_value(regs))
		found = *call->os_private;	/* a backend file of the tenant's own */
	*call->os_private = call->lent;
	regs_set_return_value(regs, (unsigned long)call->lent->private_data);
	atomic64_inc(&qgpu_lend_rm.lent);
	if (found)
		fput(found);
	return 0;
}

/* fget(fd)'s entry: a lookup the calling task lent a UVM file for goes on to the return. */
static int qgpu_lend_uvm_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct qgpu_lend_lookup *call = (struct qgpu_lend_lookup *)ri->data;

	call->lent = qgpu_lend_find((int)regs_get_kernel_argument(regs, 0), QGPU_LEND_UVM);
	return call->lent ? 0 : 1;
}

/* Its return: the lent file is the answer, in place of what the number holds. */
static int qgpu_lend_uvm_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct qgpu_lend_lookup *call = (struct qgpu_lend_lookup *)ri->data;
	struct file *found = (struct file *)regs_return_value(regs);

	regs_set_return_value(regs, (unsigned long)call->lent);
	atomic64_inc(&qgpu_lend_uvm.lent);
	if (found)
		fput(found);
	return 0;
}

/* Arm the probe on fget() for one more call. Context: process context; sleeps. */
static int qgpu_lend_uvm_arm(void)
{
	int ret = 0;

	mutex_lock(&qgpu_lend_uvm_arm_lock);
	if (!qgpu_lend_uvm_armed) {
		ret = enable_kretprobe(&qgpu_lend_uvm.krp);
		qgpu_lend_uvm_armed = !ret;
		if (ret)
			pr_warn_ratelimited("UVM fd arguments are installed in the caller's fd table for the call: arming the probe on fget failed (%d)\n",
					    ret);
	}
	if (!ret)
		qgpu_lend_uvm_users++;
	mutex_unlock(&qgpu_lend_uvm_arm_lock);
	return ret;
}

/* One call fewer needs the probe on fget(); after the last, it is disarmed once idle. */
static void qgpu_lend_uvm_disarm(void)
{
	mutex_lock(&qgpu_lend_uvm_arm_lock);
	if (!--qgpu_lend_uvm_users)
		mod_delayed_work(system_wq, &qgpu_lend_uvm_disarm_work, QGPU_LEND_UVM_IDLE);
	mutex_unlock(&qgpu_lend_uvm_arm_lock);
}

/**
 * qgpu_lend_begin() - start a call's lend, with nothing lent yet
 * @l: the lend, on the caller's stack until qgpu_lend_end()
 */
void qgpu_lend_begin(struct qgpu_lend *l)
{
	l->n = 0;
	l->armed = false;
}

/**
 * qgpu_lend_file() - lend a backend file to the calling task's lookups of an fd number
 * @l: the task's lend, from qgpu_lend_begin(); registered with its first file
 * @fd: the number the tenant passed (its proxy's)
 * @file: the backend file behind the proxy (a reference, which @l keeps)
 * @kind: what @file is; only a lookup for that kind finds it
 *
 * Until qgpu_lend_end(), the driver's lookups of @fd for @kind in this task resolve to @file.
 *
 * Context: process context; may sleep (arming the probe on fget()).
 * Return: true, or false (the reference dropped) when @l has no room left or the probe the kind
 * needs cannot be armed (a UVM file is then installed instead; qgpu_xlate_fd()).
 */
bool qgpu_lend_file(struct qgpu_lend *l, int fd, struct file *file, enum qgpu_lend_kind kind)
{
	if (WARN_ON(l->n == QGPU_LEND_MAX))
		goto err_put;
	if (kind == QGPU_LEND_UVM && !l->armed) {
		if (qgpu_lend_uvm_arm())
			goto err_put;
		l->armed = true;
	}
	raw_spin_lock_irq(&qgpu_lend_lock);
	l->fd[l->n] = fd;
	l->file[l->n] = file;
	l->kind[l->n] = kind;
	if (!l->n++) {
		l->task = current;
		hash_add(qgpu_lends, &l->node, (unsigned long)current);
		atomic_inc(&qgpu_lends_in_flight);
	}
	raw_spin_unlock_irq(&qgpu_lend_lock);
	return true;
err_put:
	fput(file);
	return false;
}

/**
 * qgpu_lend_end() - the call is over: take the lent files back
 * @l: from qgpu_lend_begin() (nothing lent is fine)
 *
 * Context: process context; may sleep (disarming the probe on fget()).
 */
void qgpu_lend_end(struct qgpu_lend *l)
{
	unsigned int i;

	if (l->n) {
		raw_spin_lock_irq(&qgpu_lend_lock);
		atomic_dec(&qgpu_lends_in_flight);
		hash_del(&l->node);
		raw_spin_unlock_irq(&qgpu_lend_lock);
	}
	if (l->armed)
		qgpu_lend_uvm_disarm();
	for (i = 0; i < l->n; i++)
		fput(l->file[i]);
	l->n = 0;
	l->armed = false;
}

/* Whether RM's fd arguments are lent rather than installed: the probe is placed. */
bool qgpu_lend_rm_ready(void)
{
	return READ_ONCE(qgpu_lend_rm.on);
}

/* Whether nvidia-uvm's fd arguments are lent rather than installed: the probe is placed. */
bool qgpu_lend_uvm_ready(void)
{
	return READ_ONCE(qgpu_lend_uvm.on);
}

/* Place @p on @symbol, disarmed if @disarmed; says why not. */
static int qgpu_lend_probe_init(struct qgpu_lend_probe *p, const char *symbol,
				kretprobe_handler_t entry, kretprobe_handler_t handler,
				bool disarmed, const char *what)
{
	int ret;

	strscpy(p->symbol, symbol, sizeof(p->symbol));
	p->krp.kp.symbol_name = p->symbol;
	p->krp.kp.flags = disarmed ? KPROBE_FLAG_DISABLED : 0;
	p->krp.entry_handler = entry;
	p->krp.handler = handler;
	p->krp.data_size = sizeof(struct qgpu_lend_lookup);
	p->krp.maxactive = qgpu_kretprobe_maxactive();
	ret = register_kretprobe(&p->krp);
	if (ret) {
		pr_warn("%s are installed in the caller's fd table for the call: no probe on %s (%d)\n",
			what, p->symbol, ret);
		return ret;
	}
	WRITE_ONCE(p->on, true);
	pr_info("%s lent through a probe on %s\n", what, p->symbol);
	return 0;
}

/**
 * qgpu_lend_init() - place the kretprobes on the backend's nv_get_file_private and on fget
 * @backend: the module of the backend's file operations
 *
 * Either may fail alone; the kernel log says why, and its fd arguments are then installed.
 *
 * Context: process context (module init).
 * Return: 0 if both are placed, else -EOPNOTSUPP or the error of register_kretprobe() (-ENOENT:
 * no such function).
 */
int qgpu_lend_init(const struct module *backend)
{
	char symbol[sizeof(qgpu_lend_rm.symbol)];
	int ret, ret_uvm;

	if (!QGPU_KRETPROBE_ARCH || !IS_ENABLED(CONFIG_KRETPROBES) || !backend)
		return -EOPNOTSUPP;
	snprintf(symbol, sizeof(symbol), "%s:nv_get_file_private", backend->name);
	ret = qgpu_lend_probe_init(&qgpu_lend_rm, symbol, qgpu_lend_rm_entry,
				   qgpu_lend_rm_return, false, "fd arguments");
	/* fget() is the kernel's: armed only while a UVM file is lent */
	ret_uvm = qgpu_lend_probe_init(&qgpu_lend_uvm, "fget", qgpu_lend_uvm_entry,
				       qgpu_lend_uvm_return, true, "UVM fd arguments");
	return ret ?: ret_uvm;
}

/* Module exit, or a failed load: no instance exists, so nothing is lent. */
void qgpu_lend_exit(void)
{
	struct qgpu_lend_probe *probes[] = { &qgpu_lend_rm, &qgpu_lend_uvm };
	unsigned int i;

	cancel_delayed_work_sync(&qgpu_lend_uvm_disarm_work);
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		if (!probes[i]->on)
			continue;
		WRITE_ONCE(probes[i]->on, false);
		unregister_kretprobe(&probes[i]->krp);
	}
}

/* The status lines: where the probes are ("-": files are installed), misses and lookups lent. */
void qgpu_lend_show(struct seq_file *m)
{
	seq_printf(m, "seal_fd: %s (%d missed, %lld lent)\n",
		   qgpu_lend_rm.on ? qgpu_lend_rm.symbol : "-", qgpu_lend_rm.krp.nmissed,
		   (long long)atomic64_read(&qgpu_lend_rm.lent));
	seq_printf(m, "seal_uvm_fd: %s (%d missed, %lld lent)\n",
		   qgpu_lend_uvm.on ? qgpu_lend_uvm.symbol : "-", qgpu_lend_uvm.krp.nmissed,
		   (long long)atomic64_read(&qgpu_lend_uvm.lent));
}
