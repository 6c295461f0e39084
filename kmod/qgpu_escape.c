// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: decoding and forwarding the ioctls of instance nodes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "qgpu_ctxbuf.h"
#include "qgpu_export.h"
#include "qgpu_fabric.h"
#include "qgpu_internal.h"
#include "qgpu_kclient.h"
#include "qgpu_mapped.h"
#include "qgpu_preempt.h"
#include "qgpu_rmtrack.h"
#include "qgpu_sched.h"
#include "qgpu_seal.h"
#include "qgpu_uvm_hold.h"

/**
 * DOC: ioctl decode
 *
 * The NVIDIA driver dispatches on _IOC_NR(cmd) and _IOC_SIZE(cmd) only (reference 1.2), so does
 * qgpu. Decoded escapes on nvidiactl / nvidia0 proxies:
 *
 * - IOCTL_XFER_CMD: unwrapped (outer size 16, inner size at most 16383, no nesting; -EINVAL
 *   otherwise) and handled exactly like the direct call with the inner nr, size and pointer. It
 *   is forwarded as that direct ioctl, never as XFER: the driver would read the inner nr from
 *   user memory again, which another thread may have changed since qgpu decided on it. An inner
 *   size of exactly 16384, which the driver accepts but an ioctl number cannot encode, is refused
 *   with -EINVAL (no escape of 525-595 has parameters that large).
 * - CARD_INFO: answered by qgpu from what the backend reported at load: the instance's GPU alone,
 *   in slot 0, with minor_number 0; the other slots zeroed. Size and device checks as the
 *   driver's (-EINVAL). Never forwarded, so the other GPUs are never written to tenant memory.
 *   RM_CONTROL of NV0000 GPU_GET_ATTACHED_IDS and GPU_GET_PROBED_IDS likewise (qgpu_gpu_ids();
 *   PROBED_IDS in the driver's layout: 384 B with a flag word per GPU listed from 580).
 * - ATTACH_GPUS_TO_FD: every id must be the instance's GPU's gpu_id (-EINVAL otherwise), and the
 *   driver takes no other GPU even where a sibling thread rewrites the ids after the check (a
 *   probe on nvidia_dev_get, DOC: sealed forwarding; netlink ``refused``). The ids
 *   keep their real values: the tenant sees its GPU's real gpu_id in CARD_INFO, and
 *   NV0000 GPU_GET_ID_INFO_V2 and NV01_DEVICE_0 allocations use the real gpu_id and device
 *   instance, unchanged (only the minor number is renumbered, because it names a device node).
 * - SYS_PARAMS: forwarded. qgpu told the driver the kernel's memory block size at load, and the
 *   driver keeps the first it is told, so a tenant's other size gets -EBUSY (qgpu_probe.c).
 * - REGISTER_FD, RM_MAP_MEMORY, RM_ALLOC_MEMORY, and RM_CONTROL of NV0000 OS_UNIX
 *   GET_EXPORT_OBJECT_INFO, NV00FD ATTACH_GPU and NV00E0 EXPORT_MEM: fd arguments translated
 *   (DOC: fd translation). The OS_UNIX export and import controls are made by qgpu itself,
 *   with the fd translated (DOC: export and import, qgpu_export.c). A refused fd is -EINVAL
 *   for REGISTER_FD (as the driver answers a bad ctl fd) and NV_ERR_INVALID_ARGUMENT in the
 *   status field for the RM escapes.
 * - RM_ALLOC of NV01_DEVICE_0: the instance's real GPU file is made visible for the call (DOC: fd
 *   translation), which also confines the allocation to the instance's GPU.
 * - Escapes the decoder does not know (nvrm_ioctl_name() is "UNKNOWN") are counted per GPU and,
 *   with the GPU's unknown_escapes knob at "refuse", failed with -EINVAL.
 * - EXPORT_TO_DMABUF_FD: refused with the status the driver answers without dma-buf support, or
 *   forwarded where the instance's ``dmabuf`` knob allows it (DOC: dma-buf export,
 *   qgpu_dmabuf.c): the driver lets the caller name any client's memory, and keeps it past every
 *   handle of it. Where it is refused, RM_CONTROL GPU_GET_INFO_V2 and GPU_GET_CACHED_INFO are
 *   forwarded and answer DMABUF_CAPABILITY_NO (qgpu_dmabuf_gpu_info()).
 * - RM_ALLOC of the classes qgpu does not make itself, RM_CONTROLs qgpu decoded and does not
 *   answer, an RM_FREE of a handle the mirror lacks, and VID_HEAP_CONTROL outside video memory
 *   are forwarded sealed: RM reads qgpu's copy of the parameters, not the caller's memory (DOC:
 *   sealed forwarding, qgpu_seal.c).
 * - ALLOC_OS_EVENT and FREE_OS_EVENT: the client must be one of the instance's, and RM reads
 *   qgpu's copy (DOC: client handles in parameters, qgpu_clients_os_event()). Their fd is only a
 *   key the driver never resolves. The keys RM holds for an instance are counted and bounded
 *   (DOC: OS events).
 * - RM_ACCESS_REGISTRY: reads only, through a client of the calling file
 *   (qgpu_clients_registry()); RM_SHARE: of a client of the calling file, and a CLIENT share
 *   only with one of the instance's clients (qgpu_clients_share()); RM_UPDATE_DEVICE_MAPPING_INFO:
 *   through a client of the calling file (qgpu_clients_update_mapping()). RM looks those clients
 *   up by handle alone.
 * - Every call that makes an RM object (RM_ALLOC, RM_DUP_OBJECT, VID_HEAP_CONTROL ALLOC_*,
 *   RM_ALLOC_MEMORY, the OS_UNIX imports) must fit under the instance's ``rm_objects_max`` (DOC:
 *   RM objects); what it made is mirrored, on a GPU node in the mirror of the ctl file
 *   REGISTER_FD bound it to.
 * - RM_MAP_MEMORY_DMA and RM_UNMAP_MEMORY_DMA (ctl proxies): the GPU address space the
 *   instance's mappings span is bounded by ``mapped_max`` and followed on the mirror, and RM
 *   reads qgpu's copy (DOC: GPU mappings, qgpu_mapped.c).
 * - Everything else is forwarded unchanged, with the caller's pointer: qgpu decided nothing about
 *   it. That includes FINN-serialized controls.
 *
 * UVM (nvidia-uvm proxies; raw command numbers, not _IOC-encoded): UVM_MM_INITIALIZE and
 * UVM_TOOLS_INIT_EVENT_TRACKER have their uvmFd translated (a refused fd is -EINVAL);
 * UVM_REGISTER_GPU gets the GPU-file treatment of device allocations; it, REGISTER_GPU_VASPACE
 * and REGISTER_CHANNEL are kept to the instance's RM clients and forwarded sealed
 * (qgpu_clients_uvm()); the rest is forwarded.
 */

/**
 * DOC: what the driver reads is what qgpu decided
 *
 * qgpu never lets a decision rest on user memory that the driver reads again later:
 *
 * - gating is on the nr of cmd (a register, not user memory), or on the inner nr of an XFER that
 *   qgpu then forwards as a direct ioctl with that nr in cmd;
 * - CARD_INFO is answered from kernel data, not filtered after the driver wrote it;
 * - fd translation does not depend on which fd number the driver finally reads (DOC: fd
 *   translation), and the device-allocation check is the driver's own, on files qgpu chose;
 * - checks that only spare the tenant a pointless call (the class that triggers the GPU-file
 *   treatment) decide nothing the driver does not check again;
 * - ATTACH_GPUS_TO_FD, which nv.c answers itself from its own copy of the ids, is held to the
 *   instance's GPU where the driver takes each GPU (nvidia_dev_get, DOC: sealed forwarding).
 *   Without that probe a sibling can have the driver attach another of the host's GPUs to the
 *   tenant's real file: that opens the GPU and keeps it from being reset while the file lives,
 *   but gives no access to it, since a device allocation needs the GPU's own file, which qgpu
 *   makes visible only for the instance's GPU.
 *
 * Memory limits decide on class, size and attr of allocations, which RM copies from user memory
 * itself (NVOS21/64, NV_MEMORY_ALLOCATION_PARAMS, NVOS32). So qgpu makes video-memory allocations
 * itself, from its copy, through its kernel client (DOC: memory limits, qgpu_mem.c), and forwards
 * the rest sealed: the driver's own kernel copy of the parameters is swapped for qgpu's as RM is
 * entered (DOC: sealed forwarding, qgpu_seal.c). A read-only VMA in the tenant's mm would not do:
 * it could be unmapped or replaced during the call (mseal(), 6.10, is a syscall only), and RM
 * writes its results through the same pointer. Where the seal is not placed, the charge comes from
 * RM's own record: qgpu asks RM through its kernel client what a forwarded call created under the
 * returned handle, and frees what no longer fits (qgpu_mem_rm_alloc_done()).
 */

/*
 * Escape numbers the decoder knows, as a bitmap built once: the check runs on every forwarded
 * ioctl, where the decoder's table search and a string compare would be measurable.
 */
static DECLARE_BITMAP(qgpu_known_escapes, 256);

/* Module init: fill the bitmap of known escape numbers from the decoder. */
void qgpu_escape_init(void)
{
	u32 nr;

	for (nr = 0; nr < 256; nr++)
		if (strcmp(nvrm_ioctl_name(nr), "UNKNOWN"))
			__set_bit(nr, qgpu_known_escapes);
}

static bool qgpu_escape_known(u32 nr)
{
	return nr < 256 && test_bit(nr, qgpu_known_escapes);
}

/* What a refused fd looks like to the tenant: an errno, or a status field of the escape. */
#define QGPU_REFUSE_ERRNO	UINT_MAX

/**
 * qgpu_forward_ioctl() - issue an ioctl on a backend file
 * @real: the backend file
 * @cmd: the command (rebuilt for an unwrapped XFER)
 * @arg: the argument, a user pointer
 * @compat: use the backend's compat_ioctl (the caller is a 32-bit process)
 *
 * Context: the caller's process context; no qgpu lock other than an fd-table lock is held.
 * Return: what the driver returns; -ENOTTY if it has no such entry point.
 */
long qgpu_forward_ioctl(struct file *real, unsigned int cmd, unsigned long arg, bool compat)
{
	if (compat) {
		if (!real->f_op->compat_ioctl)
			return -ENOTTY;
		return real->f_op->compat_ioctl(real, cmd, arg);
	}
	return vfs_ioctl(real, cmd, arg);
}

/**
 * qgpu_forward_control() - forward an RM_CONTROL as qgpu decoded it
 * @qf: the proxy
 * @cmd: the command (the direct one for an unwrapped XFER)
 * @arg: the caller's NVOS54
 * @compat: use the backend's compat_ioctl
 * @c: qgpu's decoded copy, which RM runs (DOC: sealed forwarding): a sibling thread that
 *	changes the command or the object after qgpu decided cannot reach RM with them
 * @status: RM's status, when the ioctl returned 0; NVRM_ERR_GENERIC when it cannot be read.
 *	Unsealed it is read from the caller's NVOS54 and only as good as that memory.
 *
 * Context: the caller's process context.
 * Return: what the driver returns, or -EFAULT.
 */
long qgpu_forward_control(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, bool compat,
			  const struct nvrm_control *c, u32 *status)
{
	struct nvrm_nvos54 p = {
		.hclient = c->hclient, .hobject = c->hobject, .cmd = c->cmd, .flags = c->flags,
		.params = c->params_ptr, .params_size = c->params_size, .status = c->status,
	};
	bool sealed;
	long ret;

	/* A status RM never wrote (the call refused before it) stays a failure: see below. */
	p.status = NVRM_ERR_GENERIC;
	*status = NVRM_ERR_GENERIC;
	ret = qgpu_forward_sealed(qf->real, cmd, arg, compat, &p, &sealed);
	/* Sealed, RM's status holds even where the copy to the tenant failed. */
	if (sealed)
		*status = p.status;
	else if (!ret && get_user(*status, &((struct nvrm_nvos54 __user *)arg)->status))
		*status = NVRM_ERR_GENERIC;
	return ret;
}

/* CARD_INFO from the GPU's entry at load, renumbered to GPU 0 (see DOC: ioctl decode). */
static long qgpu_card_info(struct qgpu_file *qf, void __user *uarg, u32 size)
{
	const struct qgpu_gpu *gpu = qf->inst->gpu;
	struct nvrm_card_info *cards;
	long ret = 0;

	if (qf->node != QGPU_NODE_CTL || !size || size % sizeof(*cards))
		return -EINVAL;
	cards = kzalloc(size, GFP_KERNEL);
	if (!cards)
		return -ENOMEM;
	cards[0] = gpu->card;
	cards[0].minor_number = 0;
	cards[0].fb_size = qgpu_mem_card_fb_size(qf->inst, cards[0].fb_size);
	if (!strncmp((const char *)cards[0].dev_name, "nvidia", 6)) {
		memset(cards[0].dev_name, 0, sizeof(cards[0].dev_name));
		strscpy((char *)cards[0].dev_name, "nvidia0", sizeof(cards[0].dev_name));
	}
	if (copy_to_user(uarg, cards, size))
		ret = -EFAULT;
	kfree(cards);
	return ret;
}

/**
 * qgpu_gpu_ids() - NV0000 GPU_GET_ATTACHED_IDS and GPU_GET_PROBED_IDS, answered by qgpu
 * @qf: the proxy file
 * @c: the decoded control
 * @arg: the tenant's NVOS54
 * @ret: the ioctl's return value, when handled
 *
 * The instance's GPU alone, then INVALID_ID, as CARD_INFO is answered (DOC: ioctl decode): the
 * host's other GPUs are never written to tenant memory. Asked on one of the file's own clients
 * (the mirror has it), in RM's layout: else RM's statuses for a client not of this file and a
 * params struct it does not take, and nothing written. Asked on an object that is not the
 * client, it is left to RM, which has no such control for any other class.
 *
 * Return: true when @c is one of these controls on a client (then *@ret is set).
 */
static bool qgpu_gpu_ids(struct qgpu_file *qf, const struct nvrm_control *c, unsigned long arg,
			 long *ret)
{
	u32 __user *ustatus = (u32 __user *)(arg + offsetof(struct nvrm_nvos54, status));
	struct nvrm_nv0000_gpu_get_probed_ids ids;	/* both lists start at @0 */
	u32 size, status = NVRM_OK;

	switch (c->cmd) {
	case NVRM_CTRL_CMD_NV0000_GPU_GET_ATTACHED_IDS:
		size = sizeof(struct nvrm_nv0000_gpu_get_attached_ids);
		break;
	case NVRM_CTRL_CMD_NV0000_GPU_GET_PROBED_IDS:
		size = nvrm_nv0000_probed_ids_size(qf->inst->gpu->abi.major);
		break;
	default:
		return false;
	}
	/* RM takes NV0000 controls only on a client itself: anything else is refused there */
	if (c->hobject != c->hclient)
		return false;
	memset(&ids, 0xff, sizeof(ids));	/* NVRM_NV0000_GPU_INVALID_ID in every slot */
	ids.gpu_ids[0] = qf->inst->gpu->card.gpu_id;
	mutex_lock(&qf->track->lock);
	if (!qgpu_rmtrack_find(qf->track, c->hclient, c->hclient))
		status = NVRM_ERR_INVALID_CLIENT;
	mutex_unlock(&qf->track->lock);
	if (status == NVRM_OK && (c->finn_serialized || c->params_size != size || !c->params_ptr))
		status = NVRM_ERR_INVALID_PARAM_STRUCT;
	/*
	 * 580+: a flag word for the GPU listed (a discrete GPU: no SOC display); the caller's other
	 * words are not written, as RM leaves them.
	 */
	ids.gpu_flags[0] = 0;
	if (size > offsetof(typeof(ids), gpu_flags))
		size = offsetof(typeof(ids), gpu_flags) + sizeof(ids.gpu_flags[0]);
	if (status == NVRM_OK && copy_to_user(u64_to_user_ptr(c->params_ptr), &ids, size)) {
		*ret = -EFAULT;
		return true;
	}
	*ret = put_user(status, ustatus) ? -EFAULT : 0;
	return true;
}

/*
 * ATTACH_GPUS_TO_FD: only the instance's GPU may be named, and only it is taken even where a
 * sibling thread rewrites the ids after this check (DOC: sealed forwarding).
 */
static long qgpu_attach_gpus(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			     bool compat)
{
	u32 gpu_id = qf->inst->gpu->card.gpu_id;
	u32 refused;
	long ret;
	u32 *ids;
	u32 i;

	if (qf->node != QGPU_NODE_CTL || !size || size % sizeof(u32))
		return -EINVAL;
	ids = memdup_user((void __user *)arg, size);
	if (IS_ERR(ids))
		return PTR_ERR(ids);
	for (i = 0; i < size / sizeof(u32); i++) {
		if (ids[i] != gpu_id) {
			kfree(ids);
			return -EINVAL;
		}
	}
	kfree(ids);
	ret = qgpu_forward_attach_sealed(qf->real, cmd, arg, compat, gpu_id, &refused);
	if (refused)
		qgpu_mem_call_refused(qf->inst, "ATTACH_GPUS_TO_FD of another GPU");
	return ret;
}

/* Store an fd number as an s32 or, for @wide, an NvU64 descriptor. */
static int qgpu_put_fd(void __user *ufd, bool wide, int fd)
{
	u64 fd64 = (u64)fd;

	if (wide)
		return copy_to_user(ufd, &fd64, sizeof(fd64)) ? -EFAULT : 0;
	return put_user((s32)fd, (s32 __user *)ufd);
}

/*
 * Begin @x and translate @fd for a forwarded call: true with *@real_fd to forward. False when the
 * call is answered here, *@ret what it returns: a refused fd is NV_ERR_INVALID_ARGUMENT in
 * @ustatus where there is one (the ioctl then returns 0), else -EINVAL. End @x either way.
 */
static bool qgpu_xlate_call_fd(struct qgpu_file *qf, struct qgpu_xlate *x, int fd,
			       u32 __user *ustatus, int *real_fd, long *ret)
{
	qgpu_xlate_begin(x, qf->node != QGPU_NODE_UVM);	/* UVM resolves its fds itself */
	*ret = qgpu_xlate_fd(x, qf, fd, real_fd);
	if (*ret == -EINVAL && ustatus)
		*ret = put_user(NVRM_ERR_INVALID_ARGUMENT, ustatus) ? -EFAULT : 0;
	else if (!*ret)
		return true;
	return false;
}

/**
 * qgpu_forward_with_fd() - forward a call whose parameters carry one fd number
 * @qf: the proxy the call was issued on
 * @cmd: the command to forward
 * @arg: the parameters (user pointer)
 * @ufd: where in user memory the fd is
 * @wide: the fd is stored as a u64 (NvU64 devDescriptor), else as an s32
 * @ustatus: where a refusal's RM status goes, or NULL to refuse with -EINVAL
 * @compat: forward to compat_ioctl
 *
 * Context: the caller's process context; holds the caller's fd-table lock around the call.
 * Return: what the driver returns; -EINVAL (refused fd without @ustatus), -EFAULT.
 */
static long qgpu_forward_with_fd(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				 void __user *ufd, bool wide, u32 __user *ustatus, bool compat)
{
	struct qgpu_xlate x;
	int fd, real_fd;
	u64 fd64 = 0;
	s32 fd32 = 0;
	long ret;

	if (wide ? copy_from_user(&fd64, ufd, sizeof(fd64)) : get_user(fd32, (s32 __user *)ufd))
		return -EFAULT;
	/* A descriptor that is no int is no fd: the driver rejects it as it is. */
	if (wide && fd64 > INT_MAX)
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	fd = wide ? (int)fd64 : fd32;

	if (!qgpu_xlate_call_fd(qf, &x, fd, ustatus, &real_fd, &ret))
		goto out_end;
	if (real_fd != fd && qgpu_put_fd(ufd, wide, real_fd)) {
		ret = -EFAULT;
		goto out_end;
	}
	ret = qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	/* The caller sees its own fd number again, as after a direct call. */
	if (real_fd != fd && qgpu_put_fd(ufd, wide, fd))
		ret = -EFAULT;
out_end:
	qgpu_xlate_end(&x);
	return ret;
}

/*
 * A call that needs the instance's GPU file visible, and no fd translated: sealed with @params
 * (an RM escape), or with the caller's pointer when @params is NULL (UVM's REGISTER_GPU).
 */
static long qgpu_forward_gpu_visible(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				     bool compat, void *params, bool *sealed)
{
	struct qgpu_xlate x;
	long ret;

	*sealed = false;
	qgpu_xlate_begin(&x, true);
	ret = qgpu_xlate_gpu_visible(&x, qf);
	if (!ret && params)
		ret = qgpu_forward_sealed(qf->real, cmd, arg, compat, params, sealed);
	else if (!ret)
		ret = qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	qgpu_xlate_end(&x);
	return ret;
}

/*
 * What RM wrote back: the status and the new handle. Sealed (DOC: sealed forwarding), they are
 * RM's own, in qgpu's copy @buf. Unsealed, they are read from the tenant's parameters, where
 * another thread can rewrite them, so they only steer qgpu's mirror of the tenant's own objects;
 * what qgpu charges or acts on it asks RM itself (qgpu_rmtrack_rm_has(), the kernel client).
 */
static bool qgpu_rm_alloc_result(struct qgpu_file *qf, unsigned long arg, u32 size, void *buf,
				 bool sealed, u32 *hnew)
{
	struct nvrm_alloc done;

	if ((!sealed && copy_from_user(buf, (void __user *)arg, size)) ||
	    nvrm_alloc_decode(&qf->inst->gpu->abi, buf, size, &done) || done.status != NVRM_OK)
		return false;
	*hnew = done.hnew;
	return true;
}

/* Whether RM allocated: its status in qgpu's copy @buf of a sealed call (no other is RM's). */
static bool qgpu_rm_alloc_ok(struct qgpu_file *qf, long ret, bool sealed, const void *buf,
			     u32 size)
{
	struct nvrm_alloc done;

	return !ret && sealed && !nvrm_alloc_decode(&qf->inst->gpu->abi, buf, size, &done) &&
	       done.status == NVRM_OK;
}

/* An RM_ALLOC qgpu answers itself with @status, as RM would have: nothing was allocated. */
static long qgpu_rm_alloc_refuse(struct qgpu_file *qf, unsigned long arg, u32 size, void *buf,
				 u32 status)
{
	nvrm_alloc_set_status(&qf->inst->gpu->abi, buf, size, status);
	return copy_to_user((void __user *)arg, buf, size) ? -EFAULT : 0;
}

/* The tracker of the ctl proxy a GPU proxy is bound to, or NULL (see qgpu_register_ctl()). */
static struct qgpu_rmtrack *qgpu_registered_track(struct qgpu_file *qf)
{
	struct file *ctl = READ_ONCE(qf->ctl_proxy);

	return ctl ? ((struct qgpu_file *)ctl->private_data)->track : NULL;
}

/*
 * RM_ALLOC on a GPU node without a tracker to mirror it in: forwarded, with the event's parent
 * client checked to be the caller's (DOC: client handles in parameters). *@sealed says RM's
 * results are in @buf.
 */
static long qgpu_rm_alloc_untracked(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				    u32 size, bool compat, void *buf, const struct nvrm_alloc *a,
				    bool *sealed)
{
	struct qgpu_seal seal;
	void *cparams;
	u32 status;
	long ret;

	*sealed = false;
	ret = qgpu_clients_alloc_begin(qf, a, &seal, &cparams, &status);
	if (ret)
		return ret;
	if (status)
		return qgpu_rm_alloc_refuse(qf, arg, size, buf, status);
	if (!cparams)
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	ret = qgpu_forward_sealed(qf->real, cmd, arg, compat, buf, sealed);
	qgpu_clients_alloc_end(qf, &seal, cparams, qgpu_rm_alloc_ok(qf, ret, *sealed, buf, size));
	return ret;
}

static bool qgpu_is_event_class(u32 hclass)
{
	return hclass == NVRM_CLASS_NV01_EVENT || hclass == NVRM_CLASS_NV01_EVENT_KERNEL_CALLBACK ||
	       hclass == NVRM_CLASS_NV01_EVENT_OS_EVENT ||
	       hclass == NVRM_CLASS_NV01_EVENT_KERNEL_CALLBACK_EX;
}

/*
 * RM_ALLOC on a GPU node, which the driver takes for the event classes only, in a client of the
 * ctl file REGISTER_FD bound the node's file to: mirrored with that file's objects, under the
 * instance's ``rm_objects_max`` (DOC: RM objects). Another class RM refuses there, as it does a
 * file that was never bound.
 */
static long qgpu_rm_alloc_gpu_node(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				   u32 size, bool compat, void *buf, const struct nvrm_alloc *a)
{
	struct qgpu_rmtrack *t = qgpu_registered_track(qf);
	bool sealed;
	long ret;
	u32 hnew;

	if (!t || !qgpu_is_event_class(a->hclass))
		return qgpu_rm_alloc_untracked(qf, cmd, arg, size, compat, buf, a, &sealed);
	mutex_lock(&t->lock);
	if (!qgpu_objects_reserve(t, 1)) {
		ret = qgpu_rm_alloc_refuse(qf, arg, size, buf, NVRM_ERR_INSUFFICIENT_RESOURCES);
		goto out;
	}
	ret = qgpu_rm_alloc_untracked(qf, cmd, arg, size, compat, buf, a, &sealed);
	/* Sealed, what RM made is mirrored even where the copy to the tenant failed. */
	if ((sealed || !ret) && qgpu_rm_alloc_result(qf, arg, size, buf, sealed, &hnew) &&
	    !qgpu_rmtrack_add(t, a->hroot, a->hparent, hnew, a->hclass) &&
	    qgpu_objects_bounded(qf->inst) && qgpu_objects_unmade(a->hroot, hnew))
		ret = ret ?: qgpu_rm_alloc_refuse(qf, arg, size, buf, NVRM_ERR_NO_MEMORY);
out:
	qgpu_objects_settle(t);
	mutex_unlock(&t->lock);
	return ret;
}

/*
 * RM made an object that the mirror could not record (out of memory for the node), so neither
 * ``channels`` nor ``rm_objects`` can follow it: it goes again, and the call fails as RM fails one
 * it has no memory for. Should even the free not take, it stays counted for good: that errs on
 * the tenant's side of the bound. Context: the tracker's lock held.
 */
static long qgpu_rm_alloc_uncounted(struct qgpu_file *qf, unsigned long arg, u32 size, void *buf,
				    const struct nvrm_alloc *a, u32 hnew, bool channel)
{
	u32 hclient = qgpu_is_root_class(a->hclass) ? hnew : a->hroot;

	if (!qgpu_objects_unmade(hclient, hnew))
		return 0;
	if (channel)
		qgpu_channels_put(qf->inst);
	return qgpu_rm_alloc_refuse(qf, arg, size, buf, NVRM_ERR_NO_MEMORY);
}

/*
 * RM_ALLOC: a device allocation gets the GPU-file treatment; what RM made is mirrored. Client
 * handles in the class parameters must be the tenant's (DOC: client handles in parameters). The
 * object must fit under the instance's ``rm_objects_max`` (DOC: RM objects), a channel or channel
 * group also under its ``channels_max`` (DOC: channels). Video and system memory are made by
 * qgpu (qgpu_mem_rm_alloc()); deviceless system memory is refused where ``sysmem_max`` limits the
 * instance (DOC: system memory).
 */
static long qgpu_rm_alloc(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			  bool compat)
{
	u8 buf[sizeof(struct nvrm_nvos64_v535)];
	struct qgpu_rmtrack *t = qf->track;
	struct qgpu_mapped_virtual virt = { };
	struct qgpu_rmnode *node = NULL;
	struct qgpu_fabric fab = { };
	struct qgpu_ctxbuf cb = { };
	bool sealed, counted, made, holds;
	struct qgpu_seal seal;
	struct nvrm_alloc a;
	void *cparams;
	long ret, done;
	u32 status;
	u32 hnew;

	if (size > sizeof(buf) || copy_from_user(buf, (void __user *)arg, size) ||
	    nvrm_alloc_decode(&qf->inst->gpu->abi, buf, size, &a))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	if (!t)
		return qgpu_rm_alloc_gpu_node(qf, cmd, arg, size, compat, buf, &a);
	mutex_lock(&t->lock);
	if (!qgpu_objects_reserve(t, 1)) {
		ret = qgpu_rm_alloc_refuse(qf, arg, size, buf, NVRM_ERR_INSUFFICIENT_RESOURCES);
		goto out_settle;
	}
	qgpu_rmtrack_making(t);
	if (a.hclass == NVRM_CLASS_NV01_MEMORY_LOCAL_USER ||
	    a.hclass == NVRM_CLASS_NV01_MEMORY_SYSTEM) {
		ret = qgpu_mem_rm_alloc(qf, cmd, arg, size, compat, &a);
		goto out_unlock;
	}
	if (qgpu_mem_sysmem_class_refused(qf, a.hclass) ||
	    qgpu_mapped_alloc_refused(qf, a.hclass)) {
		ret = qgpu_rm_alloc_refuse(qf, arg, size, buf, NVRM_ERR_NOT_SUPPORTED);
		goto out_unlock;
	}
	counted = qgpu_channels_counted(a.hclass);
	if (counted && !qgpu_channels_reserve(qf->inst)) {
		ret = qgpu_rm_alloc_refuse(qf, arg, size, buf, NVRM_ERR_NO_FREE_FIFOS);
		goto out_unlock;
	}
	ret = qgpu_clients_alloc_begin(qf, &a, &seal, &cparams, &status);
	if (!ret && !status && !cparams)	/* a virtual range names no client: its own seal */
		status = qgpu_mapped_virtual_begin(qf, &a, &seal, &virt);
	if (!ret && !status && !cparams && !virt.params)	/* nor does fabric memory */
		status = qgpu_fabric_begin(qf, &a, &seal, &fab);
	if (!ret && !status && !cparams)	/* nor do channels and groups */
		status = qgpu_ctxbuf_begin(qf, &a, &seal, &cb);
	if (!ret && status)
		ret = qgpu_rm_alloc_refuse(qf, arg, size, buf, status);
	if (ret || status) {
		if (counted)
			qgpu_channels_put(qf->inst);
		goto out_unlock;
	}
	/*
	 * Sealed, RM allocates the class qgpu read, and the handle and status are RM's. Unsealed,
	 * another thread can change the class before RM reads it: to a device without the GPU file
	 * visible (refused by RM), or to video memory, which qgpu_mem_rm_alloc_done() catches only
	 * when the handle it reads back is the one RM made (DOC: sealed forwarding).
	 */
	nvrm_alloc_set_status(&qf->inst->gpu->abi, buf, size, NVRM_ERR_GENERIC);
	if (a.hclass == NVRM_CLASS_NV01_DEVICE_0)
		ret = qgpu_forward_gpu_visible(qf, cmd, arg, compat, buf, &sealed);
	else
		ret = qgpu_forward_sealed(qf->real, cmd, arg, compat, buf, &sealed);
	if (cparams)	/* only then: RM_ALLOC is a hot path, and the status needs a decode */
		qgpu_clients_alloc_end(qf, &seal, cparams,
				       qgpu_rm_alloc_ok(qf, ret, sealed, buf, size));
	/* sealed, RM's status says whether it made the range, even where the copy back failed */
	if (virt.params || virt.units) {
		bool rm_ok = qgpu_rm_alloc_ok(qf, 0, sealed, buf, size);

		qgpu_mapped_virtual_end(qf, &seal, &virt, rm_ok, !sealed && !ret);
	}
	if (fab.params || cb.params) {	/* one seal a call: the status decoded only then */
		bool rm_ok = qgpu_rm_alloc_ok(qf, ret, sealed, buf, size);

		qgpu_fabric_end(qf, &seal, &fab, rm_ok);
		qgpu_ctxbuf_end(qf, &seal, &cb, rm_ok);
	}
	/* Sealed, what RM made is mirrored even where the copy to the tenant failed. */
	made = (sealed || !ret) && qgpu_rm_alloc_result(qf, arg, size, buf, sealed, &hnew);
	if (made) {
		node = qgpu_rmtrack_add(t, a.hroot, a.hparent, hnew, a.hclass);
		qgpu_mapped_virtual_made(t, node, virt.units);
		virt.units = 0;
		holds = qgpu_fabric_made(&fab, node);
		holds |= qgpu_ctxbuf_made(&cb, node);
		if (node) {
			qgpu_sched_rm_alloc(qf, node, &a);	/* channel groups, channels */
			qgpu_preempt_rm_alloc(qf, node);	/* compute objects */
		} else if (counted || holds || qgpu_objects_bounded(qf->inst)) {
			done = qgpu_rm_alloc_uncounted(qf, arg, size, buf, &a, hnew, counted);
			ret = ret ?: done;
			goto out_unlock;
		}
		done = qgpu_mem_rm_alloc_done(qf, arg, &a, node, hnew);
		if (!ret)
			ret = done;
	} else if (counted && !(ret && a.hnew && qgpu_rmtrack_rm_has(a.hroot, a.hnew))) {
		/*
		 * RM made nothing; unless an unsealed call failed only in its copy back, when RM
		 * has the handle asked for: unmirrored, that one stays counted for good.
		 */
		qgpu_channels_put(qf->inst);
	}
	/* an unsealed virtual range the tenant's memory says failed: kept until the file goes */
	qgpu_mapped_virtual_made(t, NULL, virt.units);
	qgpu_fabric_made(&fab, NULL);	/* RM made nothing: nothing held */
	qgpu_ctxbuf_made(&cb, NULL);
out_unlock:
	qgpu_rmtrack_made(t);
out_settle:
	qgpu_objects_settle(t);
	mutex_unlock(&t->lock);
	return ret;
}

/*
 * RM_FREE of an object the mirror has: qgpu frees it itself, from its kernel copy, through the
 * kernel client, as RM does when it frees a released file's clients (kernel privilege; the
 * handle's client is the calling file's, checked on the mirror as RM's clientValidate() would).
 * RM then frees exactly what qgpu drops from the mirror, and its status is the truth: forwarded,
 * RM would read the handle again, and a sibling thread could have it free another object than
 * the one qgpu uncharges (the forwarding path below must ask RM afterwards).
 *
 * A client is the exception when forwards are sealed: the escape frees the client's OS events
 * with it (rm_client_free_os_events() in escape.c, 525-595), the kernel interface does not, and
 * the driver's list would keep them until the file goes. Sealed, RM reads qgpu's copy, so it
 * frees the client qgpu drops, at the tenant's privilege; RM, asked afterwards, confirms.
 */
static long qgpu_rm_free(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			 bool compat)
{
	struct nvrm_nvos00 __user *up = (struct nvrm_nvos00 __user *)arg;
	struct qgpu_rmtrack *t = qf->track;
	struct qgpu_rmnode *node;
	struct nvrm_nvos00 p;
	bool sealed, client;
	u32 status;
	long ret;

	if (!t || size != sizeof(p) || copy_from_user(&p, up, size))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	client = p.hobject_old == p.hroot;
	mutex_lock(&t->lock);
	node = qgpu_kclient_ready() ? qgpu_rmtrack_find(t, p.hroot, p.hobject_old) : NULL;
	if (node && !(client && qgpu_seal_ready())) {
		status = qgpu_kclient_free_in(p.hroot, p.hobject_old);
		if (status == NVRM_OK)
			qgpu_rmtrack_freed_node(t, node);
		mutex_unlock(&t->lock);
		return put_user(status, &up->status) ? -EFAULT : 0;
	}
	if (client) {
		ret = qgpu_os_events_client_free_begin(qf->inst);
		if (ret)
			goto out_unlock;
	}
	/* Untracked, or a client: believe RM's word only once RM, asked directly, confirms it. */
	ret = qgpu_forward_sealed_nocopy(qf->real, cmd, arg, compat, &p, &sealed);
	if (client)
		qgpu_os_events_client_freed(qf->inst, p.hroot,
					    !ret && sealed && p.status == NVRM_OK);
	if (!ret && qgpu_rmtrack_gone(t, p.hroot, p.hobject_old))
		qgpu_rmtrack_freed(t, p.hroot, p.hobject_old);
	ret = qgpu_seal_copy_back(ret, sealed, arg, &p, sizeof(p));
out_unlock:
	mutex_unlock(&t->lock);
	return ret;
}

/*
 * A duplicate RM made, as qgpu_mem_dup_end() settled it (@status): a copy of a channel group names
 * the group the scheduler holds (qgpu_sched_rm_copy()); one the mirror could not record (out of
 * memory for its node) goes again where ``rm_objects_max`` bounds the instance (DOC: RM
 * objects). Return: the tenant's status.
 */
static u32 qgpu_rm_dup_made(struct qgpu_file *qf, const struct nvrm_nvos55 *p, u32 status,
			    struct qgpu_rmnode *node)
{
	if (status == NVRM_OK)
		qgpu_sched_rm_copy(qf, node);	/* a copy of a channel group */
	if (status != NVRM_OK || node || !qgpu_objects_bounded(qf->inst))
		return status;
	return qgpu_objects_unmade(p->hclient, p->hobject) ? NVRM_ERR_NO_MEMORY : NVRM_OK;
}

/*
 * RM_DUP_OBJECT forwarded. Sealed (DOC: sealed forwarding), RM duplicates from qgpu's copy at the
 * tenant's own privilege, with every check it makes of a user's duplicate (clientValidate(), the
 * share policy, RS_ACCESS_DUP_OBJECT), and writes the new handle into qgpu's copy: qgpu mirrors
 * and charges exactly what RM made, and a duplicate it cannot charge is refused with the status.
 * Unsealed (no probe and no kernel client), RM reads the tenant's parameters itself and qgpu can
 * verify nothing (see DOC: memory limits).
 */
static long qgpu_rm_dup_forward(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				u32 size, bool compat, struct nvrm_nvos55 *p)
{
	struct qgpu_rmtrack *t = qf->track;
	struct nvrm_nvos55 done = *p;
	struct qgpu_rmnode *src, *node;
	struct qgpu_mem_dup d;
	u32 hclass, status;
	bool sealed;
	long ret;

	/* A status RM never wrote (the call refused before it) stays a failure. */
	done.status = NVRM_ERR_GENERIC;
	mutex_lock(&t->lock);
	if (!qgpu_objects_reserve(t, 1)) {
		mutex_unlock(&t->lock);
		return put_user(NVRM_ERR_INSUFFICIENT_RESOURCES,
				&((struct nvrm_nvos55 __user *)arg)->status) ? -EFAULT : 0;
	}
	qgpu_mem_dup_begin(qf, p, &d);
	ret = qgpu_forward_sealed_nocopy(qf->real, cmd, arg, compat, &done, &sealed);
	/* Sealed, a duplicate RM made is charged even where the copy to the tenant failed. */
	if ((sealed || (!ret && !copy_from_user(&done, (void __user *)arg, size))) &&
	    done.status == NVRM_OK) {
		/* Unsealed, the source RM read may not be the one qgpu did. */
		src = sealed ? qgpu_rmtrack_find(t, p->hclient_src, p->hobject_src) : NULL;
		hclass = src ? src->hclass : QGPU_CLASS_UNKNOWN;
		p->hobject = done.hobject;
		node = qgpu_rmtrack_add(t, p->hclient, p->hparent, done.hobject, hclass);
		status = qgpu_rm_dup_made(qf, p, qgpu_mem_dup_end(qf, p, &d, node), node);
		if (sealed)
			done.status = status;
	} else {
		qgpu_mem_dup_abort(qf, &d);
	}
	qgpu_objects_settle(t);
	mutex_unlock(&t->lock);
	return qgpu_seal_copy_back(ret, sealed, arg, &done, size);
}

/*
 * RM_DUP_OBJECT: forwarded sealed where forwards are (above); otherwise qgpu makes the duplicate
 * itself, from its kernel copy of the request, through the kernel client. Were RM to read the
 * tenant's parameters again, a sibling thread could swap the source after qgpu checked it
 * (another instance's object), or the handle RM writes back before qgpu reads it (a duplicate
 * qgpu never mirrors, whose memory outlives its charge).
 * NV04_DUP_HANDLE_FLAGS_REJECT_KERNEL_DUP_PRIVILEGE has RM check the duplicate's access as for
 * the tenant's own call (the share policy, against the destination client). The one check RM
 * skips for kernel calls, that the destination client is the calling file's (clientValidate),
 * qgpu makes: the client is in this file's mirror.
 */
static long qgpu_rm_dup(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			bool compat)
{
	struct nvrm_nvos55 __user *up = (struct nvrm_nvos55 __user *)arg;
	struct qgpu_rmtrack *t = qf->track;
	struct qgpu_rmnode *src, *node;
	struct qgpu_mem_dup d;
	struct nvrm_nvos55 p;
	long ret;

	if (!t || size != sizeof(p) || copy_from_user(&p, up, size))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	if (qgpu_mem_dup_refused(qf, &p, arg, &ret))
		return ret;
	if (qgpu_seal_ready() || !qgpu_kclient_ready())
		return qgpu_rm_dup_forward(qf, cmd, arg, size, compat, &p);
	mutex_lock(&t->lock);
	if (!qgpu_rmtrack_find(t, p.hclient, p.hclient)) {
		/* RM's order: an unknown client before one that is not the caller's. */
		p.status = qgpu_rmtrack_rm_has(p.hclient, p.hclient) ?
			   NVRM_ERR_INVALID_CLIENT : NVRM_ERR_INVALID_OBJECT_HANDLE;
		goto out_unlock;
	}
	if (!qgpu_objects_reserve(t, 1)) {
		p.status = NVRM_ERR_INSUFFICIENT_RESOURCES;
		goto out_unlock;
	}
	qgpu_mem_dup_begin(qf, &p, &d);
	p.flags |= NVRM_DUP_FLAGS_REJECT_KERNEL_DUP_PRIVILEGE;
	if (qgpu_kclient_dup_in(&p) == NVRM_OK) {
		src = qgpu_rmtrack_find(t, p.hclient_src, p.hobject_src);
		/* A source in another ctl file's mirror has a class qgpu does not know here. */
		node = qgpu_rmtrack_add(t, p.hclient, p.hparent, p.hobject,
					src ? src->hclass : QGPU_CLASS_UNKNOWN);
		p.status = qgpu_rm_dup_made(qf, &p, qgpu_mem_dup_end(qf, &p, &d, node), node);
	} else {
		qgpu_mem_dup_abort(qf, &d);
	}
out_unlock:
	qgpu_objects_settle(t);
	mutex_unlock(&t->lock);
	/* What a direct call writes back: the new handle, and the status. */
	if (p.status == NVRM_OK && put_user(p.hobject, &up->hobject))
		return -EFAULT;
	return put_user(p.status, &up->status) ? -EFAULT : 0;
}

/*
 * RM_VID_HEAP_CONTROL: ALLOC_* make a memory object (RM picks its class), under the instance's
 * ``rm_objects_max`` (DOC: RM objects); FREE frees one.
 */
static long qgpu_rm_vid_heap(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			     bool compat)
{
	struct nvrm_nvos32 __user *up = (struct nvrm_nvos32 __user *)arg;
	struct qgpu_rmtrack *t = qf->track;
	struct nvrm_vidheap v, done;
	struct qgpu_rmnode *node;
	struct nvrm_nvos32 raw;
	u32 units = 0;
	bool sealed;
	long ret;

	if (!t || size != sizeof(raw) || copy_from_user(&raw, (void __user *)arg, size) ||
	    nvrm_vidheap_decode(&raw, size, &v))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	if (v.function == NVRM_NVOS32_FUNCTION_INFO && qgpu_mem_vid_heap_info(qf, arg, &v, &ret))
		return ret;
	if (!v.is_alloc && v.function != NVRM_NVOS32_FUNCTION_FREE)
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	mutex_lock(&t->lock);
	if (v.is_alloc && !qgpu_objects_reserve(t, 1)) {
		mutex_unlock(&t->lock);
		return put_user(NVRM_ERR_INSUFFICIENT_RESOURCES, &up->status) ? -EFAULT : 0;
	}
	if (v.is_alloc)
		qgpu_rmtrack_making(t);
	/* video or system memory; virtual memory (address space only) is forwarded */
	if (v.is_alloc && !(v.alloc_flags & NVRM_ALLOC_FLAGS_VIRTUAL)) {
		ret = qgpu_mem_vid_heap_alloc(qf, cmd, arg, size, compat, &raw, &v);
		goto out_unlock;
	}
	/* a virtual range: what RM maps of it up front must fit (DOC: GPU mappings) */
	if (v.is_alloc) {
		raw.status = qgpu_mapped_virtual_reserve(qf, v.alloc_flags, v.size, &units);
		if (raw.status) {
			ret = put_user(raw.status, &up->status) ? -EFAULT : 0;
			goto out_unlock;
		}
	}
	ret = qgpu_forward_sealed(qf->real, cmd, arg, compat, &raw, &sealed);
	if (ret || (!sealed && copy_from_user(&raw, (void __user *)arg, size)) ||
	    nvrm_vidheap_decode(&raw, size, &done) || done.status != NVRM_OK) {
		/*
		 * Sealed, RM's status in qgpu's copy says whether it made the range (a copy back
		 * that failed does not undo it); unsealed, the range stays counted until the file
		 * goes.
		 */
		if (sealed && (nvrm_vidheap_decode(&raw, size, &done) || done.status != NVRM_OK))
			qgpu_bound_put(&qf->inst->mapped, units);
		else
			qgpu_mapped_virtual_made(t, NULL, units);
		goto out_unlock;
	}
	if (v.is_alloc) {
		/*
		 * Virtual memory (what the converter makes of a VIRTUAL request). One the mirror
		 * cannot record goes again where rm_objects_max bounds it.
		 */
		node = qgpu_rmtrack_add(t, v.hroot, v.hparent, done.hmemory,
					NVRM_CLASS_NV50_MEMORY_VIRTUAL);
		qgpu_mapped_virtual_made(t, node, units);
		if (!node &&
		    qgpu_objects_bounded(qf->inst) && qgpu_objects_unmade(v.hroot, done.hmemory))
			ret = put_user(NVRM_ERR_NO_MEMORY, &up->status) ? -EFAULT : 0;
		else
			ret = qgpu_mem_vid_heap_done(qf, arg, &v, done.hmemory);
	} else if (qgpu_rmtrack_gone(t, v.hroot, v.hmemory)) {
		qgpu_rmtrack_freed(t, v.hroot, v.hmemory);
	}
out_unlock:
	if (v.is_alloc)
		qgpu_rmtrack_made(t);
	qgpu_objects_settle(t);
	mutex_unlock(&t->lock);
	return ret;
}

/* Where an RM control's parameters carry an fd (reference 1.4), or false. */
static bool qgpu_control_fd(const struct nvrm_control *c, u32 *off, bool *wide)
{
	u32 need;

	*wide = false;
	switch (c->cmd) {
	case NVRM_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD:
		*off = offsetof(struct nvrm_os_unix_export_object_to_fd, fd);
		break;
	case NVRM_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD:
	case NVRM_CTRL_CMD_OS_UNIX_GET_EXPORT_OBJECT_INFO:
	case NVRM_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD:
	case NVRM_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD:
		*off = 0;
		break;
	case NVRM_CTRL_CMD_OS_UNIX_CREATE_EXPORT_OBJECT_FD:
		*off = NVRM_OS_UNIX_CREATE_EXPORT_OBJECT_FD_FD_OFFSET;
		break;
	case NVRM_CTRL_CMD_NV00FD_ATTACH_GPU:
		*off = offsetof(struct nvrm_nv00fd_attach_gpu, dev_descriptor);
		*wide = true;
		break;
	case NVRM_CTRL_CMD_NV00E0_EXPORT_MEM:
		*off = NVRM_NV00E0_EXPORT_MEM_DEV_DESCRIPTOR_OFFSET;
		*wide = true;
		break;
	default:
		return false;
	}
	need = *off + (*wide ? sizeof(u64) : sizeof(s32));
	return !c->finn_serialized && c->params_ptr && c->params_size >= need;
}

/* RM_CONTROL: the fd-carrying controls get their fd translated. */
static long qgpu_rm_control(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			    bool compat)
{
	struct nvrm_nvos54 raw;
	struct nvrm_control c;
	u32 __user *ustatus;
	u32 status;
	bool wide;
	long ret;
	u32 off;

	if (size != sizeof(raw) || copy_from_user(&raw, (void __user *)arg, size) ||
	    nvrm_control_decode(&raw, size, &c))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	if (qf->track && qgpu_gpu_ids(qf, &c, arg, &ret))
		return ret;
	if (qgpu_mem_control(qf, &c, arg, &ret))
		return ret;
	if (qgpu_dmabuf_gpu_info(qf, cmd, arg, compat, &c, &ret))
		return ret;
	if (qgpu_disable_channels(qf, arg, &c, &ret))
		return ret;
	if (qgpu_preempt_control(qf, arg, &c, &ret))
		return ret;
	if (qgpu_clients_control(qf, cmd, arg, compat, &c, &ret))
		return ret;
	if (qgpu_sched_is_schedule_control(&c))
		return qgpu_sched_control(qf, cmd, arg, compat, &c);
	if (qgpu_export_control(qf, &c, arg, &ret))
		return ret;
	if (qgpu_mapped_control(qf, &c, arg, &ret))
		return ret;
	if (!qgpu_control_fd(&c, &off, &wide))
		return qgpu_forward_control(qf, cmd, arg, compat, &c, &status);
	ustatus = (u32 __user *)(arg + offsetof(struct nvrm_nvos54, status));
	return qgpu_forward_with_fd(qf, cmd, arg, u64_to_user_ptr(c.params_ptr + off), wide,
				    ustatus, compat);
}

/*
 * The same, sealed (DOC: sealed forwarding): the real fd goes into qgpu's copy @params, which RM
 * reads; the caller's memory keeps its own number throughout. RM's results land in @params, with
 * the caller's fd number put back, for the caller to copy out (qgpu_seal_copy_back()).
 */
static long qgpu_forward_fd_sealed(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				   void *params, u32 fd_off, u32 __user *ustatus, bool compat,
				   bool *sealed)
{
	struct qgpu_xlate x;
	int fd, real_fd;
	long ret;

	memcpy(&fd, params + fd_off, sizeof(fd));
	if (!qgpu_xlate_call_fd(qf, &x, fd, ustatus, &real_fd, &ret))
		goto out_end;
	memcpy(params + fd_off, &real_fd, sizeof(real_fd));
	ret = qgpu_forward_sealed_nocopy(qf->real, cmd, arg, compat, params, sealed);
	memcpy(params + fd_off, &fd, sizeof(fd));
out_end:
	qgpu_xlate_end(&x);
	return ret;
}

/**
 * qgpu_fd_escape() - REGISTER_FD, RM_MAP_MEMORY, RM_ALLOC_MEMORY: an fd at a fixed place of the
 *	escape's own parameters
 * @qf: the proxy
 * @cmd: the command
 * @arg: the caller's parameters
 * @size: their size (_IOC_SIZE(@cmd))
 * @fd_off: where the s32 fd is
 * @status_off: where a refusal's RM status goes, or QGPU_REFUSE_ERRNO to refuse with -EINVAL
 * @compat: forward to compat_ioctl
 * @params: qgpu's copy of the parameters (@size bytes), or NULL. With one and the seal placed,
 *	the call is sealed, and *@sealed says RM's results are in @params, not yet copied to @arg.
 * @sealed: see @params
 *
 * Context: the caller's process context.
 * Return: what the driver returns; -EINVAL (refused fd without a status), -EFAULT.
 */
static long qgpu_fd_escape(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			   u32 fd_off, u32 status_off, bool compat, void *params, bool *sealed)
{
	u32 __user *ustatus = NULL;

	*sealed = false;
	if (size < fd_off + sizeof(s32))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	if (status_off != QGPU_REFUSE_ERRNO)
		ustatus = (u32 __user *)(arg + status_off);
	if (params && qgpu_seal_ready())
		return qgpu_forward_fd_sealed(qf, cmd, arg, params, fd_off, ustatus, compat,
					      sealed);
	return qgpu_forward_with_fd(qf, cmd, arg, (void __user *)(arg + fd_off), false, ustatus,
				    compat);
}

/*
 * REGISTER_FD bound GPU proxy @qf to the ctl file @fd named: remember which of the instance's ctl
 * proxies it is, so that what RM makes through @qf for that file's clients is mirrored with them
 * (DOC: RM objects). @fd is resolved again after the call: a tenant that swapped its own fds
 * meanwhile has qgpu remember another of its ctl proxies, whose mirror then has none of RM's
 * clients, and nothing of another file's is touched. The first binding stays, as the driver's.
 */
static void qgpu_register_ctl(struct qgpu_file *qf, int fd)
{
	struct file *ctl = fget(fd);
	struct qgpu_file *cf;

	if (!ctl)
		return;
	cf = ctl->f_op == &qgpu_fops ? ctl->private_data : NULL;
	if (!cf || cf->inst != qf->inst || cf->node != QGPU_NODE_CTL || !cf->track ||
	    cmpxchg(&qf->ctl_proxy, NULL, ctl))
		fput(ctl);
}

/* REGISTER_FD: the ctl fd, sealed where it can be. */
static long qgpu_register_fd(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			     bool compat)
{
	struct nvrm_register_fd p;
	bool sealed;
	long ret;

	if (size != sizeof(p) || copy_from_user(&p, (void __user *)arg, size))
		return qgpu_fd_escape(qf, cmd, arg, size, offsetof(struct nvrm_register_fd, ctl_fd),
				      QGPU_REFUSE_ERRNO, compat, NULL, &sealed);
	ret = qgpu_fd_escape(qf, cmd, arg, size, offsetof(struct nvrm_register_fd, ctl_fd),
			     QGPU_REFUSE_ERRNO, compat, &p, &sealed);
	if (!ret && qf->node == QGPU_NODE_GPU)
		qgpu_register_ctl(qf, p.ctl_fd);
	return qgpu_seal_copy_back(ret, sealed, arg, &p, size);
}

/*
 * RM_MAP_MEMORY: the fd is translated; a doorbell mapping is remembered for the scheduler.
 * Sealed, RM maps the object qgpu read, so the scheduler's record is of what RM mapped.
 */
static long qgpu_rm_map_memory(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
			       u32 size, bool compat)
{
	struct nvrm_nvos33_with_fd p;
	bool have = !copy_from_user(&p, (void __user *)arg, sizeof(p));
	bool sealed;
	u32 status;
	long ret;

	/*
	 * RM writes only outputs into @p: the object and the fd stay what qgpu read. A status RM
	 * never wrote (the call refused before it) stays a failure.
	 */
	p.params.status = NVRM_ERR_GENERIC;
	ret = qgpu_fd_escape(qf, cmd, arg, size, offsetof(struct nvrm_nvos33_with_fd, fd),
			     offsetof(struct nvrm_nvos33, status), compat, have ? &p : NULL,
			     &sealed);
	ret = qgpu_seal_copy_back(ret, sealed, arg, &p, size);
	if (!have)
		return ret;
	/* Sealed, a mapping RM made is a doorbell to wrap even where the copy-back failed. */
	if (sealed)
		status = p.params.status;
	else if (ret || get_user(status, &((struct nvrm_nvos33 __user *)arg)->status))
		return ret;
	if (status == NVRM_OK)
		qgpu_sched_map_memory(qf, &p);
	return ret;
}

/*
 * RM_ALLOC_MEMORY returned: what it made goes into the mirror of @t, the tracker of the file
 * whose clients RM used; system memory with its charge (DOC: system memory), which gives back
 * what was @reserved for it. One the mirror cannot record goes again where ``rm_objects_max``
 * bounds the instance. A class that makes a client never does here, so none is mirrored as one.
 * Return: the status for the tenant.
 */
static u32 qgpu_rm_alloc_memory_mirror(struct qgpu_file *qf, struct qgpu_rmtrack *t,
				       const struct nvrm_nvos02 *p, u64 reserved)
{
	u32 hclass = qgpu_is_root_class(p->hclass) ? QGPU_CLASS_UNKNOWN : p->hclass;
	u32 status;

	if (qgpu_mem_alloc_memory_made(qf, t, p, reserved, &status))
		return status;
	if (p->status != NVRM_OK ||
	    qgpu_rmtrack_add(t, p->hroot, p->hobject_parent, p->hobject_new, hclass) ||
	    !qgpu_objects_bounded(qf->inst) || !qgpu_objects_unmade(p->hroot, p->hobject_new))
		return p->status;
	return NVRM_ERR_NO_MEMORY;
}

/*
 * RM_ALLOC_MEMORY: the fd is translated; a 0x40 one's limit becomes the instance's. The object
 * counts under ``rm_objects_max``, in the mirror of the ctl file whose clients RM uses: the
 * file's own, or on a GPU node the one REGISTER_FD bound it to (DOC: RM objects). System memory
 * (0x3E) is reserved before and charged after (DOC: system memory); without a mirror to charge
 * it in, RM has no client of the file's to make it in either.
 */
static long qgpu_rm_alloc_memory(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				 u32 size, bool compat)
{
	struct nvrm_nvos02_with_fd __user *up = (struct nvrm_nvos02_with_fd __user *)arg;
	struct qgpu_rmtrack *t = qf->track ?: qgpu_registered_track(qf);
	struct nvrm_nvos02_with_fd p;
	u64 reserved = 0;
	bool sealed;
	u32 status;
	long ret;

	if (size != sizeof(p) || copy_from_user(&p, (void __user *)arg, size))
		return -EFAULT;
	/* A status RM never wrote (the call refused before it) stays a failure, sealed or not. */
	p.params.status = NVRM_ERR_GENERIC;
	if (t) {
		if (put_user(p.params.status, &up->params.status))
			return -EFAULT;
		mutex_lock(&t->lock);
		qgpu_rmtrack_making(t);
		if (!qgpu_objects_reserve(t, 1)) {
			ret = put_user(NVRM_ERR_INSUFFICIENT_RESOURCES, &up->params.status) ?
			      -EFAULT : 0;
			goto out;
		}
		status = qgpu_mem_alloc_memory_reserve(qf, &p.params, &reserved);
		if (status) {
			ret = put_user(status, &up->params.status) ? -EFAULT : 0;
			goto out;
		}
	}
	ret = qgpu_fd_escape(qf, cmd, arg, size, offsetof(struct nvrm_nvos02_with_fd, fd),
			     offsetof(struct nvrm_nvos02, status), compat, &p, &sealed);
	if (sealed) {
		/* the limit is the instance's before the tenant can see RM's */
		if (!ret)
			qgpu_mem_alloc_memory_view(qf, &p);
		/* what RM made is mirrored even where the copy to the tenant fails */
		if (t)
			p.params.status = qgpu_rm_alloc_memory_mirror(qf, t, &p.params, reserved);
		ret = qgpu_seal_copy_back(ret, sealed, arg, &p, size);
		goto out;
	}
	if (!ret)
		qgpu_mem_alloc_memory_done(qf, arg, size);
	/*
	 * RM may have made the object where the ioctl failed after (a bad fd): its status says.
	 * The handles are qgpu's copy's (inputs RM does not change); RM is asked what it made.
	 */
	if (t) {
		if (get_user(p.params.status, &up->params.status))
			p.params.status = NVRM_ERR_GENERIC;	/* nothing to go by: not mirrored */
		status = qgpu_rm_alloc_memory_mirror(qf, t, &p.params, reserved);
		if (status != p.params.status && put_user(status, &up->params.status))
			ret = -EFAULT;
	}
out:
	if (t) {
		qgpu_rmtrack_made(t);
		qgpu_objects_settle(t);
		mutex_unlock(&t->lock);
	}
	return ret;
}

/**
 * qgpu_escape_ioctl() - an ioctl on a nvidiactl or nvidia0 proxy
 * @file: the proxy
 * @cmd: the caller's command
 * @arg: the caller's argument (already a native pointer for a compat caller)
 * @compat: the caller is a 32-bit process
 *
 * See DOC: ioctl decode.
 *
 * Context: the caller's process context.
 * Return: what the driver returns, or qgpu's own refusal (-EINVAL, -EFAULT, -ENOMEM).
 */
long qgpu_escape_ioctl(struct file *file, unsigned int cmd, unsigned long arg, bool compat)
{
	struct qgpu_file *qf = file->private_data;
	struct qgpu_gpu *gpu = qf->inst->gpu;
	u32 nr = _IOC_NR(cmd);
	u32 size = _IOC_SIZE(cmd);

	if (nr == NVRM_ESC_IOCTL_XFER_CMD) {
		struct nvrm_xfer_req req;
		struct nvrm_xfer xfer;

		if (size != sizeof(xfer))
			return -EINVAL;
		if (copy_from_user(&xfer, (void __user *)arg, sizeof(xfer)))
			return -EFAULT;
		if (nvrm_xfer_decode(&xfer, size, &req) || req.size > _IOC_SIZEMASK)
			return -EINVAL;
		nr = req.nr;
		size = req.size;
		arg = (unsigned long)req.ptr;
		cmd = _IOC(_IOC_READ | _IOC_WRITE, NVRM_IOCTL_MAGIC, nr, size);
	}

	if (!qgpu_escape_known(nr)) {
		atomic64_inc(&gpu->unknown_escapes);
		if (READ_ONCE(gpu->refuse_unknown_escapes))
			return -EINVAL;
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	}

	switch (nr) {
	case NVRM_ESC_CARD_INFO:
		return qgpu_card_info(qf, (void __user *)arg, size);
	case NVRM_ESC_ATTACH_GPUS_TO_FD:
		return qgpu_attach_gpus(qf, cmd, arg, size, compat);
	case NVRM_ESC_REGISTER_FD:
		return qgpu_register_fd(qf, cmd, arg, size, compat);
	case NVRM_ESC_RM_MAP_MEMORY:
		if (size != sizeof(struct nvrm_nvos33_with_fd))
			break;
		return qgpu_rm_map_memory(qf, cmd, arg, size, compat);
	case NVRM_ESC_RM_ALLOC_MEMORY:
		if (size != sizeof(struct nvrm_nvos02_with_fd))
			break;
		return qgpu_rm_alloc_memory(qf, cmd, arg, size, compat);
	case NVRM_ESC_RM_CONTROL:
		return qgpu_rm_control(qf, cmd, arg, size, compat);
	case NVRM_ESC_RM_ALLOC:
		return qgpu_rm_alloc(qf, cmd, arg, size, compat);
	case NVRM_ESC_RM_FREE:
		return qgpu_rm_free(qf, cmd, arg, size, compat);
	case NVRM_ESC_RM_DUP_OBJECT:
		return qgpu_rm_dup(qf, cmd, arg, size, compat);
	case NVRM_ESC_RM_VID_HEAP_CONTROL:
		return qgpu_rm_vid_heap(qf, cmd, arg, size, compat);
	case NVRM_ESC_EXPORT_TO_DMABUF_FD:
		return qgpu_dmabuf_export(qf, cmd, arg, size, compat);
	case NVRM_ESC_ALLOC_OS_EVENT:
	case NVRM_ESC_FREE_OS_EVENT:
		return qgpu_clients_os_event(qf, cmd, arg, size, compat);
	case NVRM_ESC_RM_ACCESS_REGISTRY:
		return qgpu_clients_registry(qf, cmd, arg, size, compat);
	case NVRM_ESC_RM_SHARE:
		return qgpu_clients_share(qf, cmd, arg, size, compat);
	case NVRM_ESC_RM_UPDATE_DEVICE_MAPPING_INFO:
		return qgpu_clients_update_mapping(qf, cmd, arg, size, compat);
	case NVRM_ESC_RM_MAP_MEMORY_DMA:
		return qgpu_mapped_map_ioctl(qf, cmd, arg, size, compat);
	case NVRM_ESC_RM_UNMAP_MEMORY_DMA:
		return qgpu_mapped_unmap_ioctl(qf, cmd, arg, size, compat);
	default:
		break;
	}
	return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
}

/**
 * qgpu_uvm_ioctl() - an ioctl on a nvidia-uvm proxy
 * @file: the proxy
 * @cmd: the UVM command (a plain number, not _IOC-encoded)
 * @arg: the caller's argument (already a native pointer for a compat caller)
 * @compat: the caller is a 32-bit process
 *
 * Context: the caller's process context.
 * Return: what the driver returns, or -EINVAL for a refused uvmFd, -EFAULT.
 */
long qgpu_uvm_ioctl(struct file *file, unsigned int cmd, unsigned long arg, bool compat)
{
	struct qgpu_file *qf = file->private_data;
	long ret;

	if (qgpu_uvm_hold_ioctl(qf, cmd, arg, compat, &ret))
		return ret;
	switch (cmd) {
	case NVRM_UVM_MM_INITIALIZE:
		return qgpu_forward_with_fd(qf, cmd, arg, (void __user *)arg, false, NULL, compat);
	case NVRM_UVM_TOOLS_INIT_EVENT_TRACKER:
		return qgpu_forward_with_fd(qf, cmd, arg,
					    (void __user *)(arg +
						NVRM_UVM_TOOLS_INIT_EVENT_TRACKER_UVM_FD_OFFSET),
					    false, NULL, compat);
	default:
		if (qgpu_clients_uvm(qf, cmd, arg, compat, &ret))
			return ret;
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	}
}
