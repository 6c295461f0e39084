// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: sealed forwarding: the driver runs a forwarded escape on qgpu's copy of its parameters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/ioctl.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "nvrm/nvrm_abi.h"
#include "nvrm/nvrm_uvm.h"
#include "qgpu_internal.h"
#include "qgpu_seal.h"

/**
 * DOC: sealed forwarding
 *
 * qgpu decides about an escape from its own copy of the parameters: the class of an RM_ALLOC,
 * the command of an RM_CONTROL, the function and placement of a VID_HEAP_CONTROL, the handle of
 * an RM_FREE. Forwarded with the caller's pointer, the driver copies the parameters from user
 * memory once more (nvidia_ioctl(), reference 1.2 step 5), and another thread of the tenant can
 * rewrite them in between. Measured before this existed: RM_ALLOCs qgpu read as system memory
 * (0x3E) reached RM as video memory (0x40), under handles and with statuses qgpu never saw, and
 * 16 MiB were held through an 8 MiB instance with 8 MiB of it uncharged.
 *
 * The driver hands its copy to rm_ioctl(sp, nv, nvfp, cmd, data, size) (nv.h, osapi.c, 525-595;
 * nvsim has the same function). qgpu places a kprobe on the backend's rm_ioctl. For a sealed
 * forward the calling task is registered with qgpu's copy, the escape number and the size;
 * when that task enters rm_ioctl with the same number and size, the probe replaces @data with
 * qgpu's copy. RM then reads exactly what qgpu decided on and writes its results (status, new
 * handle, output fields) into qgpu's copy, out of every tenant thread's reach. qgpu reads them
 * there and copies them to the caller, over the driver's own copy-back of what it had read.
 *
 * nvidia-uvm has the same shape: uvm_ioctl() copies a command's parameters and calls the command's
 * handler, uvm_api_<command>(params, filp) (uvm.c, UVM_ROUTE_CMD_*; 525-595), whose return becomes
 * rmStatus. For the commands qgpu follows to keep UVM's holds on memory charged (CREATE_EXTERNAL_
 * RANGE, MAP_EXTERNAL_ALLOCATION, UNMAP_EXTERNAL, FREE, UNREGISTER_GPU(_VASPACE), qgpu_uvm_hold.c;
 * UNREGISTER_CHANNEL, qgpu_uvm_channel.c), and for those whose RM client qgpu checks
 * (REGISTER_GPU(_VASPACE), REGISTER_CHANNEL; qgpu_clients.c), qgpu places a kretprobe on each
 * handler: on entry it
 * replaces @params with qgpu's copy, on return it keeps the status, so UVM maps, unmaps and frees
 * exactly what qgpu's model records, registers what qgpu checked, and qgpu reads the status from
 * the handler rather than from tenant memory.
 *
 * The parameters the ioctl itself carries are sealed this way. Memory they point to (an
 * RM_ALLOC's class parameters, an RM_CONTROL's parameters) RM copies with os_memcpy_from_user()
 * (param_copy.c, rmapiParamsAcquire(), through portMemExCopyFromUser(); 525-595; nvsim the same).
 * Where qgpu decides on that memory and forwards the call (the client handles of
 * qgpu_clients.c), it seals it too: a kretprobe on the backend's os_memcpy_from_user, for the
 * registered task's first copy from the registered user address, replaces what RM copied with
 * qgpu's copy once the copy succeeded (the copy must still come from the tenant's memory, so a
 * bad pointer fails as before). What qgpu decides on other such memory it does itself through
 * its kernel client (video-memory allocations, duplicates, exports), or it is within what the
 * sealed class or command allows anyway.
 * Lookups of fd arguments are answered the same way (DOC: lent files, qgpu_lend.c).
 *
 * ATTACH_GPUS_TO_FD never reaches RM: nvidia_ioctl() records the ids from its own copy on the ctl
 * file and takes each GPU with nvidia_dev_get(gpu_id, sp[, reset_aware]) (nv.c, 525-595), which
 * opens it and counts the file as an external client of it, so that RM will not reset it. qgpu
 * allows a tenant only its instance's GPU, and a sibling thread could rewrite the ids after
 * qgpu's check. So a kprobe on the driver's nvidia_dev_get, for the registered task's forward,
 * turns any other id into NV0000_CTRL_GPU_INVALID_ID, which names no GPU: the driver's own
 * failure path lets go of what the call took and answers -EINVAL, and no other GPU is opened
 * (``seal_attach:``, ``refused``). A successful forward that never entered nvidia_dev_get is
 * counted as missed: the driver's call was inlined out of the probe's reach, or the tenant's
 * thread rewrote every id to 0 (which the driver skips).
 *
 * The probe acts on the registered task's first matching entry only; every other caller of
 * rm_ioctl (host processes on the real nodes, qgpu's own unsealed forwards) passes unchanged,
 * at the cost of one atomic read while no sealed forward is in flight.
 *
 * Where the probe cannot be placed (a kernel without kprobes, a driver without the symbol, an
 * architecture whose argument registers qgpu does not know), forwards are unsealed as before:
 * /proc/qgpu/status says "seal: -" and ``qgpuctl doctor`` warns. A sealed forward that the
 * driver completed without entering rm_ioctl is counted as missed (status line): it would mean
 * the driver ran an RM escape outside rm_ioctl, and qgpu's copy was not what RM read.
 */

/* rm_ioctl(sp, nv, nvfp, cmd, data, size): the argument slots qgpu reads and replaces. */
#define QGPU_SEAL_ARG_CMD	3
#define QGPU_SEAL_ARG_DATA	4
#define QGPU_SEAL_ARG_SIZE	5

/* Where a seal is placed: rm_ioctl, or one of UVM's handlers (qgpu_seal_uvm_handlers). */
enum qgpu_seal_site {
	QGPU_SEAL_RM,
	QGPU_SEAL_RM_PARAMS,
	QGPU_SEAL_ATTACH,
	QGPU_SEAL_UVM_CREATE_EXTERNAL_RANGE,
	QGPU_SEAL_UVM_MAP_EXTERNAL_ALLOCATION,
	QGPU_SEAL_UVM_UNMAP_EXTERNAL,
	QGPU_SEAL_UVM_FREE,
	QGPU_SEAL_UVM_UNREGISTER_GPU,
	QGPU_SEAL_UVM_UNREGISTER_GPU_VASPACE,
	QGPU_SEAL_UVM_MAP_EXTERNAL_SPARSE,
	QGPU_SEAL_UVM_MAP_DYNAMIC_PARALLELISM_REGION,
	QGPU_SEAL_UVM_UNREGISTER_CHANNEL,
	QGPU_SEAL_UVM_REGISTER_GPU,
	QGPU_SEAL_UVM_REGISTER_GPU_VASPACE,
	QGPU_SEAL_UVM_REGISTER_CHANNEL,
	QGPU_SEAL_SITES,
};

#define QGPU_SEAL_UVM_FIRST	QGPU_SEAL_UVM_CREATE_EXTERNAL_RANGE
#define QGPU_SEAL_UVM_SITES	(QGPU_SEAL_SITES - QGPU_SEAL_UVM_FIRST)

/* The handlers, by site - QGPU_SEAL_UVM_FIRST, and the command each serves (nvrm_abi.h). */
static const struct {
	const char *name;
	unsigned int cmd;
} qgpu_seal_uvm_handlers[QGPU_SEAL_UVM_SITES] = {
	{ "uvm_api_create_external_range", NVRM_UVM_CREATE_EXTERNAL_RANGE },
	{ "uvm_api_map_external_allocation", NVRM_UVM_MAP_EXTERNAL_ALLOCATION },
	{ "uvm_api_unmap_external", NVRM_UVM_UNMAP_EXTERNAL },
	{ "uvm_api_free", NVRM_UVM_FREE },
	{ "uvm_api_unregister_gpu", NVRM_UVM_UNREGISTER_GPU },
	{ "uvm_api_unregister_gpu_va_space", NVRM_UVM_UNREGISTER_GPU_VASPACE },
	{ "uvm_api_map_external_sparse", NVRM_UVM_MAP_EXTERNAL_SPARSE },
	{ "uvm_api_map_dynamic_parallelism_region", NVRM_UVM_MAP_DYNAMIC_PARALLELISM_REGION },
	{ "uvm_api_unregister_channel", NVRM_UVM_UNREGISTER_CHANNEL },
	/* the ones that name an RM client (qgpu_clients.c) */
	{ "uvm_api_register_gpu", NVRM_UVM_REGISTER_GPU },
	{ "uvm_api_register_gpu_va_space", NVRM_UVM_REGISTER_GPU_VASPACE },
	{ "uvm_api_register_channel", NVRM_UVM_REGISTER_CHANNEL },
};

/* A kretprobe on one UVM handler; its site is its place in qgpu_seal_uvm. */
struct qgpu_seal_uvm_probe {
	struct kretprobe krp;
	char symbol[MODULE_NAME_LEN + 40];
};

/* Guards qgpu_seals and every entry's @hit, @returned, @status; taken by the probes, irqs off. */
static DEFINE_RAW_SPINLOCK(qgpu_seal_lock);
static DEFINE_HASHTABLE(qgpu_seals, 6);
static atomic_t qgpu_seals_in_flight;
static atomic64_t qgpu_seal_missed;

static struct kprobe qgpu_seal_kp;
static char qgpu_seal_symbol[MODULE_NAME_LEN + sizeof(":rm_ioctl")];
static bool qgpu_seal_on;

static struct kretprobe qgpu_seal_params_krp;
static char qgpu_seal_params_symbol[MODULE_NAME_LEN + sizeof(":os_memcpy_from_user")];
static bool qgpu_seal_params_on;
static atomic64_t qgpu_seal_params_missed;

/* What the params kretprobe keeps from os_memcpy_from_user(to, from, n)'s entry to its return. */
struct qgpu_seal_params_copy {
	void *to;
	u32 n;
};

static struct kprobe qgpu_seal_attach_kp;
static char qgpu_seal_attach_symbol[MODULE_NAME_LEN + sizeof(":nvidia_dev_get")];
static bool qgpu_seal_attach_on;
static atomic64_t qgpu_seal_attach_missed;
static atomic64_t qgpu_seal_attach_refused;

/* An id nvidia_dev_get() finds no GPU for (NV0000_CTRL_GPU_INVALID_ID, ctrl0000gpu.h). */
#define QGPU_SEAL_NO_GPU	0xffffffffu

static struct qgpu_seal_uvm_probe qgpu_seal_uvm[QGPU_SEAL_UVM_SITES];
static char qgpu_seal_uvm_module[MODULE_NAME_LEN];
static bool qgpu_seal_uvm_on;

/* Sleeping UVM calls in flight at once that a handler's kretprobe can follow. */
#define QGPU_SEAL_UVM_MAXACTIVE	128

/* Where rm_ioctl's @data (the fifth argument) and a UVM handler's @params (the first) are. */
#if defined(CONFIG_X86_64)
#define QGPU_SEAL_ARCH	true

static void qgpu_seal_set_data(struct pt_regs *regs, void *params)
{
	regs->r8 = (unsigned long)params;
}

static void qgpu_seal_set_first(struct pt_regs *regs, unsigned long value)
{
	regs->di = value;
}
#elif defined(CONFIG_ARM64)
#define QGPU_SEAL_ARCH	true

static void qgpu_seal_set_data(struct pt_regs *regs, void *params)
{
	regs->regs[QGPU_SEAL_ARG_DATA] = (unsigned long)params;
}

static void qgpu_seal_set_first(struct pt_regs *regs, unsigned long value)
{
	regs->regs[0] = value;
}
#else
#define QGPU_SEAL_ARCH	false

static void qgpu_seal_set_data(struct pt_regs *regs, void *params)
{
}

static void qgpu_seal_set_first(struct pt_regs *regs, unsigned long value)
{
}
#endif

/* The calling task's registered seal at @site, or NULL. Context: qgpu_seal_lock held. */
static struct qgpu_seal *qgpu_seal_find(enum qgpu_seal_site site)
{
	struct qgpu_seal *s;

	hash_for_each_possible(qgpu_seals, s, node, (unsigned long)current)
		if (s->task == current && s->site == site)
			return s;
	return NULL;
}

/* The kprobe on rm_ioctl's entry: the registered task's call reads and writes qgpu's copy. */
static int qgpu_seal_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct qgpu_seal *s;
	unsigned long flags;

	if (!atomic_read(&qgpu_seals_in_flight))
		return 0;
	raw_spin_lock_irqsave(&qgpu_seal_lock, flags);
	s = qgpu_seal_find(QGPU_SEAL_RM);
	if (s && !s->hit &&
	    (u32)regs_get_kernel_argument(regs, QGPU_SEAL_ARG_CMD) == s->nr &&
	    (u32)regs_get_kernel_argument(regs, QGPU_SEAL_ARG_SIZE) == s->size) {
		qgpu_seal_set_data(regs, s->params);
		s->hit = true;
	}
	raw_spin_unlock_irqrestore(&qgpu_seal_lock, flags);
	return 0;
}

/*
 * The kprobe on nvidia_dev_get(gpu_id, ...)'s entry: the registered task's ATTACH takes only the
 * instance's GPU.
 */
static int qgpu_seal_attach_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct qgpu_seal *s;
	unsigned long flags;

	if (!atomic_read(&qgpu_seals_in_flight))
		return 0;
	raw_spin_lock_irqsave(&qgpu_seal_lock, flags);
	s = qgpu_seal_find(QGPU_SEAL_ATTACH);
	if (s) {
		s->hit = true;
		if ((u32)regs_get_kernel_argument(regs, 0) != s->gpu_id) {
			qgpu_seal_set_first(regs, QGPU_SEAL_NO_GPU);
			s->refused++;
		}
	}
	raw_spin_unlock_irqrestore(&qgpu_seal_lock, flags);
	return 0;
}

/*
 * os_memcpy_from_user(to, from, n)'s entry: the registered task's copy from its registered
 * address is followed to its return. Nonzero (no return probe) for every other copy.
 */
static int qgpu_seal_params_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct qgpu_seal_params_copy *c = (struct qgpu_seal_params_copy *)ri->data;
	struct qgpu_seal *s;
	unsigned long flags;
	int ret = 1;

	if (!atomic_read(&qgpu_seals_in_flight))
		return 1;
	raw_spin_lock_irqsave(&qgpu_seal_lock, flags);
	s = qgpu_seal_find(QGPU_SEAL_RM_PARAMS);
	if (s && !s->hit && regs_get_kernel_argument(regs, 1) == s->uptr) {
		c->to = (void *)regs_get_kernel_argument(regs, 0);
		c->n = (u32)regs_get_kernel_argument(regs, 2);
		s->hit = true;
		ret = 0;
	}
	raw_spin_unlock_irqrestore(&qgpu_seal_lock, flags);
	return ret;
}

/* Its return: a copy that succeeded (NV_OK) now holds qgpu's parameters instead. */
static int qgpu_seal_params_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct qgpu_seal_params_copy *c = (struct qgpu_seal_params_copy *)ri->data;
	struct qgpu_seal *s;
	unsigned long flags;

	raw_spin_lock_irqsave(&qgpu_seal_lock, flags);
	s = qgpu_seal_find(QGPU_SEAL_RM_PARAMS);
	if (s && s->hit && !s->returned && (u32)regs_return_value(regs) == 0) {
		memcpy(c->to, s->params, min(c->n, s->size));
		s->returned = true;
	}
	raw_spin_unlock_irqrestore(&qgpu_seal_lock, flags);
	return 0;
}

static enum qgpu_seal_site qgpu_seal_uvm_site(struct kretprobe_instance *ri)
{
	struct qgpu_seal_uvm_probe *p;

	p = container_of(get_kretprobe(ri), struct qgpu_seal_uvm_probe, krp);
	return QGPU_SEAL_UVM_FIRST + (p - qgpu_seal_uvm);
}

/*
 * A UVM handler's entry: the registered task's call reads qgpu's copy. Nonzero (no return probe)
 * for every other call.
 */
static int qgpu_seal_uvm_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct qgpu_seal *s;
	unsigned long flags;
	int ret = 1;

	if (!atomic_read(&qgpu_seals_in_flight))
		return 1;
	raw_spin_lock_irqsave(&qgpu_seal_lock, flags);
	s = qgpu_seal_find(qgpu_seal_uvm_site(ri));
	if (s && !s->hit) {
		qgpu_seal_set_first(regs, (unsigned long)s->params);
		s->hit = true;
		ret = 0;
	}
	raw_spin_unlock_irqrestore(&qgpu_seal_lock, flags);
	return ret;
}

/* Its return: the status UVM puts in rmStatus, kept where no tenant thread writes. */
static int qgpu_seal_uvm_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct qgpu_seal *s;
	unsigned long flags;

	raw_spin_lock_irqsave(&qgpu_seal_lock, flags);
	s = qgpu_seal_find(qgpu_seal_uvm_site(ri));
	if (s && s->hit && !s->returned) {
		s->status = (u32)regs_return_value(regs);
		s->returned = true;
	}
	raw_spin_unlock_irqrestore(&qgpu_seal_lock, flags);
	return 0;
}

/* The probes act on @s for the calling task from now on. */
static void qgpu_seal_add(struct qgpu_seal *s)
{
	raw_spin_lock_irq(&qgpu_seal_lock);
	hash_add(qgpu_seals, &s->node, (unsigned long)current);
	atomic_inc(&qgpu_seals_in_flight);
	raw_spin_unlock_irq(&qgpu_seal_lock);
}

/* ...and no longer. */
static void qgpu_seal_del(struct qgpu_seal *s)
{
	raw_spin_lock_irq(&qgpu_seal_lock);
	atomic_dec(&qgpu_seals_in_flight);
	hash_del(&s->node);
	raw_spin_unlock_irq(&qgpu_seal_lock);
}

/* Register @s for the calling task, forward, unregister. */
static long qgpu_seal_call(struct qgpu_seal *s, struct file *real, unsigned int cmd,
			   unsigned long arg, bool compat)
{
	long ret;

	qgpu_seal_add(s);
	ret = qgpu_forward_ioctl(real, cmd, arg, compat);
	qgpu_seal_del(s);
	return ret;
}

/**
 * qgpu_forward_sealed_nocopy() - forward an escape so that RM reads and writes qgpu's copy
 * @real: the backend file
 * @cmd: the command (the direct one for an unwrapped XFER); its size is @params' size
 * @arg: the caller's parameters, which @params is qgpu's copy of
 * @compat: use the backend's compat_ioctl
 * @params: qgpu's copy; on a sealed call, RM's results are in it, and only there: the driver
 *	copied back to @arg what it had read, and the caller of this function copies @params there
 *	once it has made its own changes (qgpu_forward_sealed() does it at once)
 * @sealed: set when RM ran on @params; otherwise RM read @arg (no seal, or the driver refused
 *	the call before RM), and what the call wrote is only in @arg
 *
 * See DOC: sealed forwarding.
 *
 * Context: the caller's process context; may sleep (the driver's ioctl).
 * Return: what the driver returns.
 */
long qgpu_forward_sealed_nocopy(struct file *real, unsigned int cmd, unsigned long arg,
				bool compat, void *params, bool *sealed)
{
	struct qgpu_seal s = {
		.task = current, .params = params, .site = QGPU_SEAL_RM,
		.nr = _IOC_NR(cmd), .size = _IOC_SIZE(cmd),
	};
	long ret;

	*sealed = false;
	if (!READ_ONCE(qgpu_seal_on))
		return qgpu_forward_ioctl(real, cmd, arg, compat);
	ret = qgpu_seal_call(&s, real, cmd, arg, compat);
	if (!s.hit && !ret)
		atomic64_inc(&qgpu_seal_missed);
	*sealed = s.hit;
	return ret;
}

/**
 * qgpu_forward_sealed() - qgpu_forward_sealed_nocopy(), and RM's results copied to the caller
 * @real: the backend file
 * @cmd: the command; its size is @params' size
 * @arg: the caller's parameters
 * @compat: use the backend's compat_ioctl
 * @params: qgpu's copy of them; RM's results on a sealed call
 * @sealed: set when RM ran on @params
 *
 * Context: the caller's process context; may sleep.
 * Return: what the driver returns, or -EFAULT when the results cannot be copied to @arg.
 */
long qgpu_forward_sealed(struct file *real, unsigned int cmd, unsigned long arg, bool compat,
			 void *params, bool *sealed)
{
	long ret = qgpu_forward_sealed_nocopy(real, cmd, arg, compat, params, sealed);

	return qgpu_seal_copy_back(ret, *sealed, arg, params, _IOC_SIZE(cmd));
}

/**
 * qgpu_seal_copy_back() - give the caller RM's results of a sealed call, as the driver would
 * @ret: what the driver returned
 * @sealed: whether RM ran on @params
 * @arg: the caller's parameters
 * @params: qgpu's copy, with RM's results
 * @size: its size
 *
 * The driver copies back unless the call itself faulted (reference 1.2, step 10).
 *
 * Return: @ret, or -EFAULT.
 */
long qgpu_seal_copy_back(long ret, bool sealed, unsigned long arg, const void *params, u32 size)
{
	if (sealed && ret != -EFAULT && copy_to_user((void __user *)arg, params, size))
		return -EFAULT;
	return ret;
}

/**
 * qgpu_forward_uvm_sealed() - forward a UVM command so that its handler reads qgpu's copy
 * @real: the backend's UVM file
 * @cmd: the command; one qgpu_seal_uvm_handlers names, else it is forwarded unsealed
 * @arg: the caller's parameters, which @params is qgpu's copy of
 * @compat: use the backend's compat_ioctl
 * @params: qgpu's copy; on a sealed call, what the handler wrote is in it, with rmStatus set as
 *	uvm_ioctl() sets it, and it is copied to @arg as uvm_ioctl() copies its own
 * @size: the size of the command's parameters
 * @status_off: where rmStatus is in them
 * @status: on a sealed call, what the handler returned (UVM's rmStatus)
 * @sealed: set when the handler ran on @params and returned; otherwise UVM read @arg (no seal,
 *	UVM answered before the handler, or the kretprobe had no free instance), and what the call
 *	wrote is only in @arg
 *
 * See DOC: sealed forwarding.
 *
 * Context: the caller's process context; may sleep.
 * Return: what the driver returns, or -EFAULT when the results cannot be copied to @arg.
 */
long qgpu_forward_uvm_sealed(struct file *real, unsigned int cmd, unsigned long arg, bool compat,
			     void *params, u32 size, u32 status_off, u32 *status, bool *sealed)
{
	struct qgpu_seal s = { .task = current, .params = params };
	unsigned int i;
	long ret;

	*sealed = false;
	for (i = 0; i < QGPU_SEAL_UVM_SITES; i++)
		if (qgpu_seal_uvm_handlers[i].cmd == cmd)
			break;
	if (!READ_ONCE(qgpu_seal_uvm_on) || i == QGPU_SEAL_UVM_SITES)
		return qgpu_forward_ioctl(real, cmd, arg, compat);
	s.site = QGPU_SEAL_UVM_FIRST + i;
	ret = qgpu_seal_call(&s, real, cmd, arg, compat);
	*sealed = s.hit && s.returned;
	if (!*sealed)
		return ret;
	*status = s.status;
	memcpy(params + status_off, status, sizeof(*status));
	return qgpu_seal_copy_back(ret, true, arg, params, size);
}

/**
 * qgpu_forward_attach_sealed() - forward ATTACH_GPUS_TO_FD so that it takes only @gpu_id
 * @real: the backend's ctl file
 * @cmd: the command
 * @arg: the caller's ids, all @gpu_id when qgpu checked them
 * @compat: use the backend's compat_ioctl
 * @gpu_id: the instance's GPU
 * @refused: set to how many ids the driver read as another GPU (a sibling thread rewrote them
 *	after qgpu's check); the call then failed with -EINVAL and took nothing
 *
 * See DOC: sealed forwarding. Without the probe it is forwarded as it is.
 *
 * Context: the caller's process context; may sleep.
 * Return: what the driver returns.
 */
long qgpu_forward_attach_sealed(struct file *real, unsigned int cmd, unsigned long arg,
				bool compat, u32 gpu_id, u32 *refused)
{
	struct qgpu_seal s = { .task = current, .site = QGPU_SEAL_ATTACH, .gpu_id = gpu_id };
	long ret;

	*refused = 0;
	if (!READ_ONCE(qgpu_seal_attach_on))
		return qgpu_forward_ioctl(real, cmd, arg, compat);
	ret = qgpu_seal_call(&s, real, cmd, arg, compat);
	if (!s.hit && !ret)
		atomic64_inc(&qgpu_seal_attach_missed);
	if (s.refused)
		atomic64_add(s.refused, &qgpu_seal_attach_refused);
	*refused = s.refused;
	return ret;
}

/**
 * qgpu_seal_params_begin() - have RM read qgpu's copy of the parameters a call points to
 * @s: the registration, on the caller's stack until qgpu_seal_params_end()
 * @uptr: the tenant's address of them, as the forwarded call passes it to RM
 * @copy: qgpu's copy, @size bytes, that RM is to use (RM writes its results to @uptr itself)
 * @size: its size
 *
 * For the calling task's next forward (DOC: sealed forwarding). Without the probe it does
 * nothing, and RM reads @uptr.
 *
 * Context: process context.
 */
static void qgpu_seal_params_begin(struct qgpu_seal *s, u64 uptr, void *copy, u32 size)
{
	*s = (struct qgpu_seal){
		.task = current, .params = copy, .site = QGPU_SEAL_RM_PARAMS, .size = size,
		.uptr = uptr,
	};
	if (!READ_ONCE(qgpu_seal_params_on))
		return;
	qgpu_seal_add(s);
	s->registered = true;
}

/**
 * qgpu_seal_params_end() - end qgpu_seal_params_begin()'s registration
 * @s: the registration
 * @rm_ok: RM answered NV_OK; a call that succeeded without RM copying @uptr is counted as
 *	missed (one RM refused before copying, an unknown control say, read nothing)
 *
 * Context: process context.
 * Return: whether RM used qgpu's copy.
 */
static bool qgpu_seal_params_end(struct qgpu_seal *s, bool rm_ok)
{
	if (!s->registered)
		return false;
	qgpu_seal_del(s);
	if (!s->returned && rm_ok)
		atomic64_inc(&qgpu_seal_params_missed);
	return s->returned;
}

/**
 * qgpu_seal_params_lock() - one sealed forward at a time for an instance, then begin the seal
 * @lock: the instance's params_seal (struct qgpu_instance), which bounds the calls the probe's
 *	pool must hold to one an instance (DOC: client handles in parameters, qgpu_clients.c)
 * @s: as for qgpu_seal_params_begin()
 * @uptr: as for qgpu_seal_params_begin()
 * @copy: as for qgpu_seal_params_begin()
 * @size: as for qgpu_seal_params_begin()
 *
 * The caller forwards the call and then calls qgpu_seal_params_unlock().
 *
 * Context: process context; sleeps.
 * Return: 0, or -EINTR: killed while another forward of the instance waited on RM (nothing
 * sealed, @lock not held).
 */
int qgpu_seal_params_lock(struct mutex *lock, struct qgpu_seal *s, u64 uptr, void *copy, u32 size)
{
	if (mutex_lock_killable(lock))
		return -EINTR;
	qgpu_seal_params_begin(s, uptr, copy, size);
	return 0;
}

/**
 * qgpu_seal_params_unlock() - end qgpu_seal_params_lock()
 * @lock: as given there
 * @s: the registration
 * @rm_ok: as for qgpu_seal_params_end()
 *
 * Context: process context.
 * Return: whether RM used qgpu's copy.
 */
bool qgpu_seal_params_unlock(struct mutex *lock, struct qgpu_seal *s, bool rm_ok)
{
	bool used = qgpu_seal_params_end(s, rm_ok);

	mutex_unlock(lock);
	return used;
}

/* Whether forwards are sealed: the probe is placed. */
bool qgpu_seal_ready(void)
{
	return READ_ONCE(qgpu_seal_on);
}

/* The kretprobe on the backend's os_memcpy_from_user; without it the status line says "-". */
static void qgpu_seal_params_init(const struct module *backend)
{
	int ret;

	if (!IS_ENABLED(CONFIG_KRETPROBES)) {
		pr_warn("parameters behind calls are not sealed: no kretprobes\n");
		return;
	}
	snprintf(qgpu_seal_params_symbol, sizeof(qgpu_seal_params_symbol),
		 "%s:os_memcpy_from_user", backend->name);
	qgpu_seal_params_krp.kp.symbol_name = qgpu_seal_params_symbol;
	qgpu_seal_params_krp.entry_handler = qgpu_seal_params_entry;
	qgpu_seal_params_krp.handler = qgpu_seal_params_return;
	qgpu_seal_params_krp.data_size = sizeof(struct qgpu_seal_params_copy);
	/*
	 * One entry for each forward that may wait in RM's copy (one per instance, struct
	 * qgpu_instance.params_seal) and one per CPU for the copies the entry handler turns away
	 * at once: a registered copy never finds the pool empty (a miss would be an unsealed copy).
	 */
	qgpu_seal_params_krp.maxactive = QGPU_MAX_INSTANCES + num_possible_cpus();
	ret = register_kretprobe(&qgpu_seal_params_krp);
	if (ret) {
		pr_warn("parameters behind calls are not sealed: no probe on %s (%d)\n",
			qgpu_seal_params_symbol, ret);
		return;
	}
	WRITE_ONCE(qgpu_seal_params_on, true);
	pr_info("parameters behind calls sealed through a probe on %s\n",
		qgpu_seal_params_symbol);
}

/* The kprobe on the backend's nvidia_dev_get; without it the status line says "-". */
static void qgpu_seal_attach_init(const struct module *backend)
{
	int ret;

	snprintf(qgpu_seal_attach_symbol, sizeof(qgpu_seal_attach_symbol), "%s:nvidia_dev_get",
		 backend->name);
	qgpu_seal_attach_kp.symbol_name = qgpu_seal_attach_symbol;
	qgpu_seal_attach_kp.pre_handler = qgpu_seal_attach_pre;
	ret = register_kprobe(&qgpu_seal_attach_kp);
	if (ret) {
		pr_warn("ATTACH_GPUS_TO_FD is not sealed: no probe on %s (%d)\n",
			qgpu_seal_attach_symbol, ret);
		return;
	}
	WRITE_ONCE(qgpu_seal_attach_on, true);
	pr_info("ATTACH_GPUS_TO_FD sealed through a probe on %s\n", qgpu_seal_attach_symbol);
}

/**
 * qgpu_seal_init() - place the probe on the backend's rm_ioctl
 * @backend: the module of the backend's file operations
 *
 * Context: process context (module init), after the backend was probed.
 * Return: 0, -EOPNOTSUPP (an architecture or kernel without what the probe needs), or the error
 * of register_kprobe() (-ENOENT: the driver has no rm_ioctl).
 */
int qgpu_seal_init(const struct module *backend)
{
	int ret;

	if (!QGPU_SEAL_ARCH || !IS_ENABLED(CONFIG_KPROBES) || !backend)
		return -EOPNOTSUPP;
	snprintf(qgpu_seal_symbol, sizeof(qgpu_seal_symbol), "%s:rm_ioctl", backend->name);
	qgpu_seal_kp.symbol_name = qgpu_seal_symbol;
	qgpu_seal_kp.pre_handler = qgpu_seal_pre;
	ret = register_kprobe(&qgpu_seal_kp);
	if (ret)
		return ret;
	WRITE_ONCE(qgpu_seal_on, true);
	pr_info("forwards sealed through a probe on %s\n", qgpu_seal_symbol);
	qgpu_seal_params_init(backend);
	qgpu_seal_attach_init(backend);
	return 0;
}

/**
 * qgpu_seal_uvm_init() - place the kretprobes on the backend UVM module's handlers
 * @uvm: the module of the backend's nvidia-uvm file operations
 *
 * All or none: a UVM command qgpu follows but cannot seal would keep the race the others close.
 *
 * Context: process context (module init).
 * Return: 0, -EOPNOTSUPP, or the error of register_kretprobe() (-ENOENT: no such handler).
 */
int qgpu_seal_uvm_init(const struct module *uvm)
{
	struct kretprobe *krps[QGPU_SEAL_UVM_SITES];
	struct qgpu_seal_uvm_probe *p;
	unsigned int i;
	int ret;

	if (!QGPU_SEAL_ARCH || !IS_ENABLED(CONFIG_KRETPROBES) || !uvm)
		return -EOPNOTSUPP;
	strscpy(qgpu_seal_uvm_module, uvm->name, sizeof(qgpu_seal_uvm_module));
	for (i = 0; i < QGPU_SEAL_UVM_SITES; i++) {
		p = &qgpu_seal_uvm[i];
		snprintf(p->symbol, sizeof(p->symbol), "%s:%s", uvm->name,
			 qgpu_seal_uvm_handlers[i].name);
		p->krp.kp.symbol_name = p->symbol;
		p->krp.entry_handler = qgpu_seal_uvm_entry;
		p->krp.handler = qgpu_seal_uvm_return;
		/*
		 * The handlers of commands whose RM client qgpu checks: a miss would be an
		 * unchecked client, so such calls go one at a time per instance
		 * (qgpu_clients_uvm()) and the pool has an entry for each and for every CPU, as
		 * for os_memcpy_from_user.
		 */
		p->krp.maxactive = QGPU_SEAL_UVM_FIRST + i >= QGPU_SEAL_UVM_REGISTER_GPU ?
				   QGPU_MAX_INSTANCES + num_possible_cpus() :
				   QGPU_SEAL_UVM_MAXACTIVE;
		krps[i] = &p->krp;
	}
	ret = register_kretprobes(krps, QGPU_SEAL_UVM_SITES);	/* all or none */
	if (ret) {
		pr_warn("UVM calls are not sealed: no probes on %s's uvm_api_* handlers (%d)\n",
			uvm->name, ret);
		return ret;
	}
	WRITE_ONCE(qgpu_seal_uvm_on, true);
	pr_info("UVM calls sealed through probes on %s's handlers\n", uvm->name);
	return 0;
}

/* Module exit: no instance exists, so no sealed forward is in flight. */
void qgpu_seal_exit(void)
{
	struct kretprobe *krps[QGPU_SEAL_UVM_SITES];
	unsigned int i;

	if (qgpu_seal_uvm_on) {
		WRITE_ONCE(qgpu_seal_uvm_on, false);
		for (i = 0; i < QGPU_SEAL_UVM_SITES; i++)
			krps[i] = &qgpu_seal_uvm[i].krp;
		unregister_kretprobes(krps, QGPU_SEAL_UVM_SITES);
	}
	if (qgpu_seal_params_on) {
		WRITE_ONCE(qgpu_seal_params_on, false);
		unregister_kretprobe(&qgpu_seal_params_krp);
	}
	if (qgpu_seal_attach_on) {
		WRITE_ONCE(qgpu_seal_attach_on, false);
		unregister_kprobe(&qgpu_seal_attach_kp);
	}
	if (!qgpu_seal_on)
		return;
	WRITE_ONCE(qgpu_seal_on, false);
	unregister_kprobe(&qgpu_seal_kp);
}

/*
 * The status lines: where the probes are ("-" where calls go unsealed), the RM misses, and the
 * UVM calls a handler's kretprobe could not follow (no free instance).
 */
void qgpu_seal_show(struct seq_file *m)
{
	long long nmissed = 0;
	unsigned int i;

	seq_printf(m, "seal: %s (%lld missed)\n", qgpu_seal_on ? qgpu_seal_symbol : "-",
		   (long long)atomic64_read(&qgpu_seal_missed));
	for (i = 0; i < QGPU_SEAL_UVM_SITES; i++)
		nmissed += qgpu_seal_uvm[i].krp.nmissed;
	seq_printf(m, "seal_uvm: %s%s (%lld missed)\n",
		   qgpu_seal_uvm_on ? qgpu_seal_uvm_module : "-",
		   qgpu_seal_uvm_on ? ":uvm_api_*" : "", nmissed);
	/* a registered copy the kretprobe had no free instance for is missed as well */
	seq_printf(m, "seal_params: %s (%lld missed)\n",
		   qgpu_seal_params_on ? qgpu_seal_params_symbol : "-",
		   (long long)atomic64_read(&qgpu_seal_params_missed));
	seq_printf(m, "seal_attach: %s (%lld missed, %lld refused)\n",
		   qgpu_seal_attach_on ? qgpu_seal_attach_symbol : "-",
		   (long long)atomic64_read(&qgpu_seal_attach_missed),
		   (long long)atomic64_read(&qgpu_seal_attach_refused));
}
