// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: finding the backend's GPUs at load.
 *
 * The NVIDIA driver copies every ioctl's parameters with copy_from_user(), so a kernel buffer
 * cannot be passed to it. Module init runs in the loading process (insmod/modprobe, host root),
 * which has a user address space: qgpu maps two anonymous pages there with vm_mmap(), issues the
 * probe ioctls on them exactly as a user-space client would, and unmaps them. The device
 * allocation's GPU-file check (nv_is_gpu_accessible) is met by the real GPU file sitting in the
 * loader's fd table for the duration of that one call, and watched: the GPU the driver asks
 * about then is how it names that GPU, which qgpu answers its tenants' checks by (DOC: GPU-file
 * check, qgpu_gpucheck.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "qgpu_internal.h"
#include "qgpu_kclient.h"

/* Layout of the probe's user pages: the escape's own struct, then what it points to. */
#define QGPU_PROBE_PAGES	2
#define QGPU_PROBE_EMBED_OFF	PAGE_SIZE

/**
 * struct qgpu_probe - one probe of the backend
 * @ctl: the backend's nvidiactl, opened for the probe
 * @ubuf: the probe's user pages in the loader's address space
 * @abi: the backend's decoder profile (valid once the version is known)
 */
struct qgpu_probe {
	struct file *ctl;
	u8 __user *ubuf;
	const struct nvrm_abi *abi;
};

/* Issue escape @nr on @f with @size bytes of @params, copied through the probe's user page. */
static int qgpu_probe_escape(struct qgpu_probe *p, struct file *f, u32 nr, void *params,
			     u32 size)
{
	int ret;

	if (copy_to_user(p->ubuf, params, size))
		return -EFAULT;
	ret = qgpu_forward_ioctl(f, NVRM_IOWR(nr, size), (unsigned long)p->ubuf, false);
	if (copy_from_user(params, p->ubuf, size))
		return -EFAULT;
	return ret;
}

/* RM_ALLOC (NVOS21, the same size in every version) of @hclass; returns the RM status. */
static u32 qgpu_probe_alloc(struct qgpu_probe *p, u32 hroot, u32 hparent, u32 hclass,
			    const void *ap, u32 ap_size, u32 *hnew)
{
	struct nvrm_nvos21_v535 a = {
		.hroot = hroot,
		.hobject_parent = hparent,
		.hclass = hclass,
		.status = NVRM_ERR_GENERIC,
	};
	struct nvrm_alloc out;
	u8 __user *uap = p->ubuf + QGPU_PROBE_EMBED_OFF;

	if (ap) {
		if (copy_to_user(uap, ap, ap_size))
			return NVRM_ERR_INVALID_POINTER;
		a.palloc_parms = (u64)(uintptr_t)uap;
	}
	if (p->abi->nvos21_has_params_size)
		a.params_size = ap_size;
	else
		a.params_size = NVRM_ERR_GENERIC;	/* the 525-530 status field */
	if (qgpu_probe_escape(p, p->ctl, NVRM_ESC_RM_ALLOC, &a, sizeof(a)))
		return NVRM_ERR_GENERIC;
	if (nvrm_alloc_decode(p->abi, &a, sizeof(a), &out))
		return NVRM_ERR_GENERIC;
	*hnew = out.hnew;
	return out.status;
}

/* RM_CONTROL @cmd on (@hclient, @hobject) with @size bytes of @params in and out. */
static u32 qgpu_probe_control(struct qgpu_probe *p, u32 hclient, u32 hobject, u32 cmd,
			      void *params, u32 size)
{
	u8 __user *uparams = p->ubuf + QGPU_PROBE_EMBED_OFF;
	struct nvrm_nvos54 c = {
		.hclient = hclient,
		.hobject = hobject,
		.cmd = cmd,
		.params = (u64)(uintptr_t)uparams,
		.params_size = size,
		.status = NVRM_ERR_GENERIC,
	};

	if (size > PAGE_SIZE || copy_to_user(uparams, params, size))
		return NVRM_ERR_INVALID_POINTER;
	if (qgpu_probe_escape(p, p->ctl, NVRM_ESC_RM_CONTROL, &c, sizeof(c)))
		return NVRM_ERR_GENERIC;
	if (c.status == NVRM_OK && copy_from_user(params, uparams, size))
		return NVRM_ERR_INVALID_POINTER;
	return c.status;
}

static void qgpu_probe_free(struct qgpu_probe *p, u32 hclient)
{
	struct nvrm_nvos00 f = { .hroot = hclient, .hobject_old = hclient };

	qgpu_probe_escape(p, p->ctl, NVRM_ESC_RM_FREE, &f, sizeof(f));
}

/*
 * NV01_DEVICE_0 under @client, with the GPU's real file in the loader's fd table meanwhile; the
 * GPU the driver's GPU-file check asks about becomes @gpu's rm_gpu.
 */
static u32 qgpu_probe_device(struct qgpu_probe *p, struct qgpu_gpu *gpu, u32 client, u32 *hdev)
{
	struct nvrm_nv0080_alloc_params dp = { .device_id = gpu->device_instance };
	struct qgpu_gpucheck check;
	const void *seen;
	struct file *gf;
	u32 status;
	int fd;

	gf = qgpu_open_backend(QGPU_NODE_GPU, gpu, O_RDWR);
	if (IS_ERR(gf))
		return NVRM_ERR_INSUFFICIENT_PERMISSIONS;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		fput(gf);
		return NVRM_ERR_INSUFFICIENT_RESOURCES;
	}
	fd_install(fd, get_file(gf));
	qgpu_gpucheck_learn_begin(&check);
	status = qgpu_probe_alloc(p, client, client, NVRM_CLASS_NV01_DEVICE_0, &dp, sizeof(dp),
				  hdev);
	seen = qgpu_gpucheck_learn_end(&check);
	if (status == NVRM_OK)
		gpu->rm_gpu = seen;
	if (status == NVRM_OK && qgpu_gpucheck_ready() && !seen)
		pr_warn("gpu%u: the driver's GPU-file check was not seen once for one GPU; tenants' checks are met by a file installed for the call\n",
			gpu->index);
	close_fd(fd);
	fput(gf);
	return status;
}

/*
 * NUMA_INFO on the GPU's own file: whether its memory is onlined as a NUMA node, as on a coherent
 * platform (Grace Hopper and later), where processes can take it with the kernel's page allocator,
 * past RM and so past qgpu's limits. At load only: the node is the driver's choice, and qgpu says
 * what it saw (sysfs numa_node, a log line).
 */
static void qgpu_probe_numa(struct qgpu_probe *p, struct qgpu_gpu *gpu)
{
	struct nvrm_numa_info_head *info;
	struct file *gf;
	int ret;

	info = kzalloc(p->abi->numa_info_size, GFP_KERNEL);
	if (!info)
		return;
	gf = qgpu_open_backend(QGPU_NODE_GPU, gpu, O_RDWR);
	ret = IS_ERR(gf) ? PTR_ERR(gf) :
	      qgpu_probe_escape(p, gf, NVRM_ESC_NUMA_INFO, info, p->abi->numa_info_size);
	if (!IS_ERR(gf))
		fput(gf);
	if (ret) {
		pr_warn("gpu%u: NUMA_INFO failed (%d); whether its memory is a NUMA node is unknown\n",
			gpu->index, ret);
	} else {
		gpu->numa_node = info->nid < 0 ? -1 : info->nid;
		if (info->nid >= 0)
			pr_warn("gpu%u: its memory is NUMA node %d (%llu MiB), which the page allocator hands out past qgpu's limits: keep tenants off it with cpuset.mems\n",
				gpu->index, info->nid, info->numa_mem_size >> 20);
	}
	kfree(info);
}

/**
 * qgpu_probe_identity() - name, UUID, memory and device instance of one GPU, from RM
 * @p: the probe
 * @gpu: filled in; fields stay at their CARD_INFO-based defaults where RM does not answer
 *
 * Return: the first RM status that was not NV_OK, or NV_OK.
 */
static u32 qgpu_probe_identity(struct qgpu_probe *p, struct qgpu_gpu *gpu)
{
	struct nvrm_nv0000_gpu_get_id_info_v2 id = { .gpu_id = gpu->card.gpu_id };
	struct nvrm_nv2080_alloc_params sp = { 0 };
	struct nvrm_gpu_get_name_string *name;
	struct nvrm_gpu_get_gid_info *gid;
	struct nvrm_fb_get_info_v2 *fb;
	u32 client, dev, sub, status;
	void *buf;

	buf = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return NVRM_ERR_NO_MEMORY;
	status = qgpu_probe_alloc(p, 0, 0, NVRM_CLASS_NV01_ROOT_CLIENT, NULL, 0, &client);
	if (status)
		goto out_free_buf;
	status = qgpu_probe_control(p, client, client, NVRM_CTRL_CMD_NV0000_GPU_GET_ID_INFO_V2,
				    &id, sizeof(id));
	if (status)
		goto out_free_client;
	gpu->device_instance = id.device_instance;
	status = qgpu_probe_device(p, gpu, client, &dev);
	if (status)
		goto out_free_client;
	status = qgpu_probe_alloc(p, client, dev, NVRM_CLASS_NV20_SUBDEVICE_0, &sp, sizeof(sp),
				  &sub);
	if (status)
		goto out_free_client;

	name = buf;
	status = qgpu_probe_control(p, client, sub, NVRM_CTRL_CMD_GPU_GET_NAME_STRING, name,
				    p->abi->gpu_name_string_size);
	if (status)
		goto out_free_client;
	strscpy(gpu->name, (const char *)name->name.ascii, sizeof(gpu->name));

	memset(buf, 0, PAGE_SIZE);
	gid = buf;
	gid->flags = NVRM_GPU_GET_GID_FLAGS_FORMAT_ASCII | NVRM_GPU_GET_GID_FLAGS_TYPE_SHA1;
	status = qgpu_probe_control(p, client, sub, NVRM_CTRL_CMD_GPU_GET_GID_INFO, gid,
				    sizeof(*gid));
	if (status)
		goto out_free_client;
	strscpy(gpu->uuid, (const char *)gid->data, sizeof(gpu->uuid));

	memset(buf, 0, PAGE_SIZE);
	fb = buf;
	fb->fb_info_list_size = 1;
	fb->fb_info_list[0].index = NVRM_FB_INFO_INDEX_TOTAL_RAM_SIZE;
	status = qgpu_probe_control(p, client, sub, NVRM_CTRL_CMD_FB_GET_INFO_V2, fb,
				    p->abi->fb_get_info_v2_size);
	if (!status)
		gpu->memory = (u64)fb->fb_info_list[0].data << 10;

out_free_client:
	qgpu_probe_free(p, client);
out_free_buf:
	kfree(buf);
	return status;
}

/*
 * The backend's driver version: CHECK_VERSION_STR with cmd QUERY, from 530.30.02. Before, the same
 * cmd ('2') is OVERRIDE, which succeeds and writes nothing (osapi.c, 525.147.05), and any check
 * that fails logs an API mismatch; there the kernel-client handshake tells the version instead.
 */
static int qgpu_probe_version(struct qgpu_probe *p, char *version)
{
	struct nvrm_rm_api_version v = { .cmd = NVRM_RM_API_VERSION_CMD_QUERY };
	int ret;

	ret = qgpu_probe_escape(p, p->ctl, NVRM_ESC_CHECK_VERSION_STR, &v, sizeof(v));
	if (ret)
		return ret;
	v.version_string[sizeof(v.version_string) - 1] = '\0';
	strscpy(version, v.version_string, NVRM_RM_API_VERSION_STRING_LENGTH);
	if (version[0])
		return 0;
	return qgpu_kclient_driver_version(version, NVRM_RM_API_VERSION_STRING_LENGTH);
}

/*
 * SYS_PARAMS with the kernel's memory block size, the size every CUDA process reports when it
 * starts (from /sys/devices/system/memory/block_size_bytes; all 62 such calls traced on an H200
 * with driver 580). The driver keeps the first non-zero size it is told until it is unloaded,
 * answers any other with -EBUSY, and reports it in NUMA_INFO for onlining a coherent GPU's memory
 * (nv.c, one for the driver, 525-595). Told by qgpu at load, it cannot be told another size by a
 * tenant that would otherwise have come first, and a tenant that reports another gets -EBUSY,
 * as it would where any honest process had come first. Without memory hotplug the kernel has no
 * block size and user space none to report: nothing is sent.
 */
static void qgpu_probe_sys_params(struct qgpu_probe *p)
{
#ifdef CONFIG_MEMORY_HOTPLUG
	struct nvrm_sys_params sp = { .memblock_size = memory_block_size_bytes() };
	int ret;

	ret = qgpu_probe_escape(p, p->ctl, NVRM_ESC_SYS_PARAMS, &sp, sizeof(sp));
	if (ret == -EBUSY)
		pr_warn("the driver was told another memory block size than the kernel's (%#llx) before qgpu loaded: CUDA processes will be answered -EBUSY\n",
			sp.memblock_size);
	else if (ret)
		pr_warn("SYS_PARAMS on the backend failed (%d)\n", ret);
#endif
}

/* Create one parent per valid CARD_INFO entry. */
static int qgpu_probe_gpus(struct qgpu_probe *p, const char *version, bool abi_known)
{
	struct nvrm_card_info *cards;
	unsigned int i;
	int ret;

	cards = kcalloc(QGPU_MAX_GPUS, sizeof(*cards), GFP_KERNEL);
	if (!cards)
		return -ENOMEM;
	ret = qgpu_probe_escape(p, p->ctl, NVRM_ESC_CARD_INFO, cards,
				QGPU_MAX_GPUS * sizeof(*cards));
	if (ret) {
		pr_warn("CARD_INFO on the backend failed (%d); no GPUs\n", ret);
		ret = 0;
		goto out_free;
	}
	for (i = 0; i < QGPU_MAX_GPUS; i++) {
		struct qgpu_gpu *gpu;
		u32 status;

		if (!cards[i].valid)
			continue;
		gpu = qgpu_gpu_new(&cards[i], version);
		if (!gpu) {
			ret = -ENOMEM;
			goto out_free;
		}
		if (abi_known) {
			status = qgpu_probe_identity(p, gpu);
			if (status)
				pr_warn("gpu%u: identity probe failed (%s); name and UUID unknown\n",
					gpu->index, nvrm_status_name(status));
			qgpu_probe_numa(p, gpu);
		}
		ret = qgpu_gpu_register(gpu);
		if (ret)
			goto out_free;
	}
out_free:
	kfree(cards);
	return ret;
}

/**
 * qgpu_probe_backend() - create a GPU parent for every GPU the backend driver reports
 * @gpucheck: place the probe that answers tenants' GPU-file checks (DOC: GPU-file check) once the
 *	backend's module is known, so that each GPU is learned as it is probed
 *
 * Opens <backend_dir>/nvidiactl, reads the driver version (CHECK_VERSION_STR QUERY) and the GPUs
 * (CARD_INFO) and, if qgpu knows that version, each GPU's name, UUID and memory through a
 * short-lived RM client. A backend that is missing or does not answer leaves qgpu loaded with no
 * GPUs; an unknown version leaves the parents without instances (see qgpu_instance_create()).
 *
 * Context: module init, in the loading process (it needs a user address space).
 * Return: 0, or -ENOMEM / the error of creating a parent's sysfs entries.
 */
int qgpu_probe_backend(bool gpucheck)
{
	char version[NVRM_RM_API_VERSION_STRING_LENGTH] = "unknown";
	struct nvrm_abi *abi;
	struct qgpu_probe p;
	unsigned long addr;
	struct file *uvm;
	bool abi_known;
	int ret;

	p.ctl = qgpu_open_backend(QGPU_NODE_CTL, NULL, O_RDWR);
	if (IS_ERR(p.ctl)) {
		pr_warn("opening the backend's nvidiactl failed (%ld); no GPUs\n", PTR_ERR(p.ctl));
		return 0;
	}
	qgpu_backend_fops[QGPU_NODE_CTL] = p.ctl->f_op;
	if (gpucheck)
		qgpu_gpucheck_init(p.ctl->f_op->owner);	/* it says why not */
	uvm = qgpu_open_backend(QGPU_NODE_UVM, NULL, O_RDWR);
	if (!IS_ERR(uvm)) {
		qgpu_backend_fops[QGPU_NODE_UVM] = uvm->f_op;
		fput(uvm);
	}

	ret = 0;
	if (!current->mm) {
		pr_warn("loaded without a user address space: cannot probe the backend; no GPUs\n");
		goto out_put_ctl;
	}
	abi = kzalloc(sizeof(*abi), GFP_KERNEL);
	ret = -ENOMEM;
	if (!abi)
		goto out_put_ctl;
	addr = vm_mmap(NULL, 0, QGPU_PROBE_PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (IS_ERR_VALUE(addr)) {
		ret = (int)addr;
		goto out_free_abi;
	}
	p.ubuf = (u8 __user *)addr;

	ret = qgpu_probe_version(&p, version);
	if (ret)
		pr_warn("CHECK_VERSION_STR on the backend failed (%d)\n", ret);
	abi_known = !nvrm_abi_init(abi, version);
	if (!abi_known)
		pr_warn("backend driver version %s is not one qgpu knows (525-595); instances cannot be created\n",
			version);
	p.abi = abi;
	qgpu_probe_sys_params(&p);
	ret = qgpu_probe_gpus(&p, version, abi_known);

	vm_munmap(addr, QGPU_PROBE_PAGES * PAGE_SIZE);
out_free_abi:
	kfree(abi);
out_put_ctl:
	fput(p.ctl);
	return ret;
}
