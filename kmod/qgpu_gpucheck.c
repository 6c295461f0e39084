// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: the driver's GPU-file check answered for a tenant's call, without a real file in its fd
 * table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>

#include "qgpu_gpucheck.h"
#include "qgpu_kretprobe.h"

/**
 * DOC: GPU-file check
 *
 * RM refuses a user client's NV01_DEVICE_0 allocation (deviceConstruct, device.c) and
 * UVM_REGISTER_GPU (nvGpuOpsGetGpuInfo, nv_gpu_ops.c, which nvidia-uvm reaches through
 * nvUvmInterfaceGetGpuInfo) with NV_ERR_INSUFFICIENT_PERMISSIONS unless osIsGpuAccessible()
 * holds. That asks nv_is_gpu_accessible(nv) in nv.c, which walks the calling process's fd table
 * for a file of the driver's that belongs to GPU @nv (595.45.04). A tenant holds only proxies.
 *
 * Putting a real GPU file in the tenant's fd table for the call (DOC: fd translation, the way
 * without this probe) lets another thread of the tenant take it meanwhile; sent over a unix
 * socket, the copy escapes qgpu's check after the call. A real /dev/nvidiaN takes escapes that
 * only a GPU node takes (RM_ALLOC_MEMORY, RM_I2C_ACCESS: NV_ACTUAL_DEVICE_ONLY in escape.c; the
 * NUMA and dma-buf escapes in nv.c) straight to the driver, past qgpu's decoding.
 *
 * So qgpu places a kretprobe on the backend's nv_is_gpu_accessible. For a call whose caller
 * holds one of its instance's nvidia0 proxies open (what the driver wants of a direct caller),
 * qgpu registers the calling task with the instance's GPU (qgpu_gpucheck_grant()); the probe
 * then answers true when that task's check asks about that GPU, and leaves every other answer
 * to the driver: another GPU's device is refused as before (the tenant has no real file of it).
 *
 * The driver names the GPU by its nv_state_t, whose layout is the driver's own. qgpu never
 * reads it; it learns which pointer is which GPU at load: qgpu_probe.c allocates each GPU's
 * device itself, naming it by its device instance, while this probe watches
 * (qgpu_gpucheck_learn_begin()): the GPU RM asks about during that allocation is that device
 * instance's. A GPU whose check was not seen, or seen with two different GPUs, is not learned,
 * and its tenants' checks are met by a file installed for the call, as without the probe. qgpu's
 * list of GPUs is fixed at load, so a GPU the driver unbinds and binds again while qgpu is loaded
 * needs qgpu reloaded in any case.
 *
 * Without the probe (``seal=0``, a kernel without kretprobes, a driver without the function),
 * the file is installed. /proc/qgpu/status says which: ``seal_gpu: <module>:nv_is_gpu_accessible
 * (N missed, M answered)`` or ``seal_gpu: -``. A missed check (no free kretprobe instance) is
 * the driver's own answer, a refusal: the call fails closed.
 */

/* Guards qgpu_gpuchecks and every registered check's @seen; taken by the probe, irqs off. */
static DEFINE_RAW_SPINLOCK(qgpu_gpucheck_lock);
static DEFINE_HASHTABLE(qgpu_gpuchecks, 6);
static atomic_t qgpu_gpuchecks_in_flight;
static atomic64_t qgpu_gpucheck_answered;

static struct kretprobe qgpu_gpucheck_krp;
static char qgpu_gpucheck_symbol[MODULE_NAME_LEN + sizeof(":nv_is_gpu_accessible")];
static bool qgpu_gpucheck_on;

/* Register @c for the calling task. */
static void qgpu_gpucheck_register(struct qgpu_gpucheck *c)
{
	c->task = current;
	raw_spin_lock_irq(&qgpu_gpucheck_lock);
	hash_add(qgpu_gpuchecks, &c->node, (unsigned long)current);
	atomic_inc(&qgpu_gpuchecks_in_flight);
	raw_spin_unlock_irq(&qgpu_gpucheck_lock);
	c->registered = true;
}

/*
 * nv_is_gpu_accessible()'s entry: a learning check notes the GPU asked about; a granted one for
 * its GPU has the return answered. Everything else returns untouched (1: no return handler).
 */
static int qgpu_gpucheck_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const void *gpu = (const void *)regs_get_kernel_argument(regs, 0);
	struct qgpu_gpucheck *c;
	unsigned long flags;
	int ret = 1;

	if (!atomic_read(&qgpu_gpuchecks_in_flight))
		return 1;
	raw_spin_lock_irqsave(&qgpu_gpucheck_lock, flags);
	hash_for_each_possible(qgpu_gpuchecks, c, node, (unsigned long)current) {
		if (c->task != current)
			continue;
		if (!c->gpu)
			c->seen = !c->seen || c->seen == gpu ? gpu : ERR_PTR(-EINVAL);
		else if (c->gpu == gpu)
			ret = 0;
		break;
	}
	raw_spin_unlock_irqrestore(&qgpu_gpucheck_lock, flags);
	return ret;
}

/* Its return, for a granted check: the instance's GPU is accessible to the caller. */
static int qgpu_gpucheck_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	regs_set_return_value(regs, 1);
	atomic64_inc(&qgpu_gpucheck_answered);
	return 0;
}

/**
 * qgpu_gpucheck_learn_begin() - watch which GPU the driver's checks in this task ask about
 * @c: the check, on the caller's stack until qgpu_gpucheck_learn_end()
 *
 * Nothing is answered; the driver decides as for any caller.
 *
 * Context: process context.
 */
void qgpu_gpucheck_learn_begin(struct qgpu_gpucheck *c)
{
	c->gpu = NULL;
	c->seen = NULL;
	c->registered = false;
	if (READ_ONCE(qgpu_gpucheck_on))
		qgpu_gpucheck_register(c);
}

/**
 * qgpu_gpucheck_learn_end() - stop watching
 * @c: from qgpu_gpucheck_learn_begin()
 *
 * Return: the one GPU the driver's checks asked about since, as it names it; NULL if none was
 * seen (or the probe is not placed), or if two different ones were.
 */
const void *qgpu_gpucheck_learn_end(struct qgpu_gpucheck *c)
{
	qgpu_gpucheck_end(c);
	return IS_ERR(c->seen) ? NULL : c->seen;
}

/**
 * qgpu_gpucheck_grant() - answer the driver's checks of @gpu in this task: accessible
 * @c: the check, on the caller's stack until qgpu_gpucheck_end()
 * @gpu: the GPU as the driver names it (learned by qgpu_gpucheck_learn_end()), or NULL
 *
 * Context: process context.
 * Return: true if granted; false (nothing registered) without the probe or without @gpu.
 */
bool qgpu_gpucheck_grant(struct qgpu_gpucheck *c, const void *gpu)
{
	c->registered = false;
	if (!gpu || !READ_ONCE(qgpu_gpucheck_on))
		return false;
	c->gpu = gpu;
	c->seen = NULL;
	qgpu_gpucheck_register(c);
	return true;
}

/**
 * qgpu_gpucheck_end() - the call is over: the driver answers this task's checks itself again
 * @c: from qgpu_gpucheck_grant() or qgpu_gpucheck_learn_begin(); one never registered is fine
 */
void qgpu_gpucheck_end(struct qgpu_gpucheck *c)
{
	if (!c->registered)
		return;
	raw_spin_lock_irq(&qgpu_gpucheck_lock);
	atomic_dec(&qgpu_gpuchecks_in_flight);
	hash_del(&c->node);
	raw_spin_unlock_irq(&qgpu_gpucheck_lock);
	c->registered = false;
}

/* Whether checks are answered by the probe rather than met by an installed file. */
bool qgpu_gpucheck_ready(void)
{
	return READ_ONCE(qgpu_gpucheck_on);
}

/**
 * qgpu_gpucheck_init() - place the kretprobe on the backend's nv_is_gpu_accessible
 * @backend: the module of the backend's file operations
 *
 * Context: process context (module init), before the backend's GPUs are probed (they are learned
 * then).
 * Return: 0, -EOPNOTSUPP, or the error of register_kretprobe() (-ENOENT: no such function).
 */
int qgpu_gpucheck_init(const struct module *backend)
{
	int ret;

	if (!QGPU_KRETPROBE_ARCH || !IS_ENABLED(CONFIG_KRETPROBES) || !backend)
		return -EOPNOTSUPP;
	snprintf(qgpu_gpucheck_symbol, sizeof(qgpu_gpucheck_symbol), "%s:nv_is_gpu_accessible",
		 backend->name);
	qgpu_gpucheck_krp.kp.symbol_name = qgpu_gpucheck_symbol;
	qgpu_gpucheck_krp.entry_handler = qgpu_gpucheck_entry;
	qgpu_gpucheck_krp.handler = qgpu_gpucheck_return;
	/* a check the probe cannot follow gets the driver's answer: a refusal */
	qgpu_gpucheck_krp.maxactive = qgpu_kretprobe_maxactive();
	ret = register_kretprobe(&qgpu_gpucheck_krp);
	if (ret) {
		pr_warn("the GPU-file check is met by a file installed in the caller's fd table: no probe on %s (%d)\n",
			qgpu_gpucheck_symbol, ret);
		return ret;
	}
	WRITE_ONCE(qgpu_gpucheck_on, true);
	pr_info("GPU-file checks answered through a probe on %s\n", qgpu_gpucheck_symbol);
	return 0;
}

/* Module exit, or a failed load: no instance exists, so no check is registered. */
void qgpu_gpucheck_exit(void)
{
	if (!qgpu_gpucheck_on)
		return;
	WRITE_ONCE(qgpu_gpucheck_on, false);
	unregister_kretprobe(&qgpu_gpucheck_krp);
}

/* The status line: where the probe is ("-": files are installed), misses and answers. */
void qgpu_gpucheck_show(struct seq_file *m)
{
	seq_printf(m, "seal_gpu: %s (%d missed, %lld answered)\n",
		   qgpu_gpucheck_on ? qgpu_gpucheck_symbol : "-", qgpu_gpucheck_krp.nmissed,
		   (long long)atomic64_read(&qgpu_gpucheck_answered));
}
