// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the ioctl entry point and the OS-level escapes.
 *
 * The path follows the real driver's nvidia_ioctl() (reference section 1.2): only _IOC_NR and
 * _IOC_SIZE of the command count; IOCTL_XFER_CMD is unwrapped first; the parameters are copied into
 * a kernel buffer, handled, and always copied back unless the copy itself faulted. Failures of the
 * call itself (bad size, wrong device, failed version check) are -EINVAL; RM-level results travel
 * in the parameters' status field with the ioctl returning 0.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/ioctl.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "nvsim_internal.h"

static struct nvsim_file *nvsim_file(struct file *file)
{
	return file->private_data;
}

/*
 * CARD_INFO (ctl only): an array of entries, one per GPU slot; the caller sizes it. The real driver
 * fills as many GPUs as fit and leaves the rest zeroed (valid = 0).
 */
static int nvsim_card_info(struct file *file, void *params, u32 size)
{
	struct nvrm_card_info *cards = params;
	unsigned int n = size / sizeof(*cards);
	unsigned int i;

	if (!nvsim_file(file)->is_ctl || !size || size % sizeof(*cards))
		return -EINVAL;
	memset(params, 0, size);
	for (i = 0; i < n && i < nvsim_num_gpus; i++) {
		struct nvsim_gpu *gpu = &nvsim_gpus[i];

		cards[i].valid = 1;
		cards[i].pci_info.domain = 0;
		cards[i].pci_info.bus = gpu->gpu_id >> 8;
		cards[i].pci_info.vendor_id = 0x10de;	/* NVIDIA */
		cards[i].pci_info.device_id = 0x2331;	/* H100 PCIe */
		cards[i].gpu_id = gpu->gpu_id;
		/* fb_size is the BAR1 aperture; with resizable BAR it equals the framebuffer. */
		cards[i].fb_size = gpu->fb_size;
		cards[i].minor_number = gpu->index;
		snprintf((char *)cards[i].dev_name, sizeof(cards[i].dev_name), "nvidia%u",
			 gpu->index);
	}
	return 0;
}

/*
 * CHECK_VERSION_STR (ctl only), RmPerformVersionCheck: QUERY returns the version (530+; in 525
 * the same cmd is OVERRIDE, which succeeds and writes nothing); RELAXED compares up to the first
 * '.'; anything else is STRICT, a full compare. A mismatch writes the driver's version back and
 * fails the call. The reply is always RECOGNIZED.
 */
static int nvsim_check_version(struct file *file, void *params, u32 size)
{
	struct nvrm_rm_api_version *v = params;
	const char *ours = nvsim_abi.version;
	size_t len;

	if (!nvsim_file(file)->is_ctl || size != sizeof(*v))
		return -EINVAL;
	v->reply = NVRM_RM_API_VERSION_REPLY_RECOGNIZED;
	if (v->cmd == NVRM_RM_API_VERSION_CMD_QUERY) {
		if (nvsim_abi.major < NVRM_RM_API_VERSION_CMD_QUERY_SINCE)
			return 0;	/* OVERRIDE: no check, nothing written */
		goto reply_version;
	}

	v->version_string[sizeof(v->version_string) - 1] = '\0';
	if (v->cmd == NVRM_RM_API_VERSION_CMD_RELAXED)
		len = strcspn(ours, ".");
	else
		len = strlen(ours) + 1;
	if (!strncmp(v->version_string, ours, len))
		return 0;
	pr_info_ratelimited("API mismatch: the client has the version %s, but this module has %s\n",
			    v->version_string, ours);
	strscpy(v->version_string, ours, sizeof(v->version_string));
	return -EINVAL;

reply_version:
	strscpy(v->version_string, ours, sizeof(v->version_string));
	return 0;
}

/*
 * REGISTER_FD (on a GPU file): bind it to a ctl file. The fd is resolved by nv_get_file_private(),
 * in the caller's table and by device number (195:255). nvsim also checks the file is its own
 * before touching private_data; the real driver does not (reference section 0.1), so a proxy that
 * passes a 195:255 file of its own would crash it; here that proxy just gets -EINVAL.
 */
int nvsim_register_fd(struct file *file, void *params, u32 size)
{
	struct nvrm_register_fd *reg = params;
	struct nvsim_file *nf = nvsim_file(file);
	struct file *ctl;
	int ret = -EINVAL;

	if (!nf->gpu || size != sizeof(*reg))
		return -EINVAL;
	ctl = nvsim_get_nvidia_file(reg->ctl_fd, true);
	if (!ctl)
		return -EINVAL;

	mutex_lock(&nvsim_rm_lock);
	if (!nf->ctl_file) {
		nf->ctl_file = ctl;	/* the reference is kept until this file closes */
		ctl = NULL;
		ret = 0;
	}
	mutex_unlock(&nvsim_rm_lock);
	if (ctl)
		fput(ctl);
	return ret;
}

/*
 * The memory block size user space reports with SYS_PARAMS (the driver reports it back in
 * NUMA_INFO, for onlining a coherent GPU's memory); one for the driver, like nv_ctl_device's.
 */
static u64 nvsim_numa_memblock_size;
static DEFINE_MUTEX(nvsim_sys_params_lock);

/*
 * SYS_PARAMS (ctl only), as nv.c: the first non-zero memory block size sticks for the driver's
 * lifetime (a zero one leaves it unset); a later call with another size is -EBUSY.
 */
static int nvsim_sys_params(struct file *file, void *params, u32 size)
{
	const struct nvrm_sys_params *p = params;
	int ret = 0;

	if (!nvsim_file(file)->is_ctl || size != sizeof(*p))
		return -EINVAL;
	mutex_lock(&nvsim_sys_params_lock);
	if (!nvsim_numa_memblock_size)
		nvsim_numa_memblock_size = p->memblock_size;
	else if (nvsim_numa_memblock_size != p->memblock_size)
		ret = -EBUSY;
	mutex_unlock(&nvsim_sys_params_lock);
	return ret;
}

/*
 * NUMA_INFO (GPU file), as nv.c answers it: the node of the GPU's memory and its state, with the
 * memory block size SYS_PARAMS set. Without the numa_node parameter no GPU's memory is a node
 * (nid -1, DISABLED, no memory: what an H200 with 580 answered); with it, GPU i's whole memory is
 * node numa_node + i, ONLINE, at an address of its own.
 */
static int nvsim_numa_info(struct file *file, void *params, u32 size)
{
	struct nvrm_numa_info_head *p = params;
	const struct nvsim_gpu *gpu = nvsim_file(file)->gpu;

	if (!gpu || size != nvsim_abi.numa_info_size)
		return -EINVAL;
	memset(params, 0, size);
	p->nid = -1;
	p->status = NVRM_NUMA_STATUS_DISABLED;
	if (nvsim_numa_node >= 0) {
		p->nid = nvsim_numa_node + gpu->index;
		p->status = NVRM_NUMA_STATUS_ONLINE;
		p->numa_mem_addr = (u64)(gpu->index + 1) << 40;
		p->numa_mem_size = gpu->fb_size;
	}
	mutex_lock(&nvsim_sys_params_lock);
	p->memblock_size = nvsim_numa_memblock_size;
	mutex_unlock(&nvsim_sys_params_lock);
	return 0;
}

/* WAIT_OPEN_COMPLETE (550+, GPU file): nvsim's opens complete at once. */
static int nvsim_wait_open_complete(struct file *file, void *params, u32 size)
{
	struct nvrm_wait_open_complete *w = params;

	if (!nvsim_abi.has_wait_open_complete || !nvsim_file(file)->gpu || size != sizeof(*w))
		return -EINVAL;
	w->rc = 0;
	w->adapter_status = NVRM_OK;
	return 0;
}

/**
 * nvsim_dispatch() - handle one (unwrapped) escape on a kernel copy of its parameters
 * @file: the nvsim file the ioctl was issued on
 * @nr: the escape number
 * @params: kernel copy of the parameters, copied back to the caller afterwards
 * @size: their size
 *
 * The escapes nv.c answers itself are handled here; every other one goes to rm_ioctl(), as in
 * the real driver (reference 1.2, step 9).
 *
 * Context: process context; takes nvsim_rm_lock where state changes.
 * Return: 0, or -EINVAL for a call the driver refuses (unknown escape, wrong size or device). An
 * embedded pointer that cannot be read or written is RM's status (NV_ERR_INVALID_ADDRESS) in the
 * parameters, as in the real driver, and they are still copied back.
 */
static int nvsim_dispatch(struct file *file, u32 nr, void *params, u32 size)
{
	switch (nr) {
	case NVRM_ESC_CARD_INFO:
		return nvsim_card_info(file, params, size);
	case NVRM_ESC_CHECK_VERSION_STR:
		return nvsim_check_version(file, params, size);
	case NVRM_ESC_ATTACH_GPUS_TO_FD:
		return nvsim_attach_gpus(file, params, size);
	case NVRM_ESC_SYS_PARAMS:
		return nvsim_sys_params(file, params, size);
	case NVRM_ESC_WAIT_OPEN_COMPLETE:
		return nvsim_wait_open_complete(file, params, size);
	case NVRM_ESC_NUMA_INFO:
		return nvsim_numa_info(file, params, size);
	case NVRM_ESC_EXPORT_TO_DMABUF_FD:
		return nvsim_export_dmabuf(file, params, size);
	default:
		return rm_ioctl(NULL, NULL, file, nr, params, size);
	}
}

/**
 * nvsim_ioctl() - the unlocked_ioctl of /dev/nvidiactl and /dev/nvidiaN
 * @file: the nvsim file
 * @cmd: _IOWR('F', nr, size); only nr and size count, as in the real driver
 * @arg: user pointer to the parameters
 *
 * Context: process context.
 * Return: 0, -EINVAL (refused call), -EFAULT (bad user pointer) or -ENOMEM.
 */
long nvsim_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uptr = (void __user *)arg;
	u32 nr = _IOC_NR(cmd);
	u32 size = _IOC_SIZE(cmd);
	void *params;
	int ret;

	if (nr == NVRM_ESC_IOCTL_XFER_CMD) {
		struct nvrm_xfer_req req;
		struct nvrm_xfer xfer;

		if (size != sizeof(xfer))
			return -EINVAL;
		if (copy_from_user(&xfer, uptr, sizeof(xfer)))
			return -EFAULT;
		ret = nvrm_xfer_decode(&xfer, size, &req);
		if (ret)
			return -EINVAL;
		nr = req.nr;
		size = req.size;
		uptr = u64_to_user_ptr(req.ptr);
	}
	if (!size || size > NVRM_ABSOLUTE_MAX_IOCTL_SIZE)
		return -EINVAL;

	params = memdup_user(uptr, size);
	if (IS_ERR(params))
		return PTR_ERR(params);
	ret = nvsim_dispatch(file, nr, params, size);
	if (ret != -EFAULT && copy_to_user(uptr, params, size))
		ret = -EFAULT;
	kfree(params);
	return ret;
}
