// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: ATTACH_GPUS_TO_FD, and the GPU references it takes.
 *
 * As nv.c's nvidia_ioctl() (525-595): the ids, from the kernel copy of the parameters, are
 * recorded on the ctl file (a second call on the same file fails with -EINVAL), then each non-zero
 * one is taken with nvidia_dev_get(gpu_id, sp[, reset_aware]), which opens the GPU and counts the
 * file as one of its external clients (RM's reset path waits for them). An id that is no GPU
 * fails the call: the GPUs taken so far are let go again, the record is dropped, and the call
 * returns -EINVAL. When the file closes, nvidia_close() lets every recorded non-zero id go with
 * nvidia_dev_put().
 *
 * nvidia_dev_get() and nvidia_dev_put() are global functions in nv.c in every release line, and
 * have the same names and first arguments here, never inlined or cloned (the calls below must
 * reach the global symbol): qgpu places a kprobe on nvidia_dev_get to hold a tenant's ATTACH to
 * its instance's GPU (DOC: sealed forwarding). They are also the kernel interface's open_gpu and
 * close_gpu (nv-modeset-interface.c; nvsim_kapi.c). /proc/driver/nvsim/gpu<N>/attached counts the
 * references a GPU holds, through either.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "nvsim_internal.h"

/* Checks and sets a file's record at once, as nvl->ldata_lock does in nv.c. */
static DEFINE_MUTEX(nvsim_attach_lock);

/**
 * nvidia_dev_get() - take a reference on the GPU with @gpu_id, as nv.c's function of that name
 * @gpu_id: the GPU
 * @sp: the driver's stack (unused)
 * @reset_aware: not counted as an external client (580+; unused: nvsim has no reset path)
 *
 * Return: 0, or -ENODEV when no GPU has @gpu_id.
 */
noinline __noclone int nvidia_dev_get(u32 gpu_id, void *sp, bool reset_aware)
{
	struct nvsim_gpu *gpu = nvsim_gpu_by_id(gpu_id);

	if (!gpu)
		return -ENODEV;
	atomic_inc(&gpu->attached);
	return 0;
}

/**
 * nvidia_dev_put() - let nvidia_dev_get()'s reference go
 * @gpu_id: the GPU
 * @sp: the driver's stack (unused)
 * @reset_aware: as for nvidia_dev_get()
 */
noinline __noclone void nvidia_dev_put(u32 gpu_id, void *sp, bool reset_aware)
{
	struct nvsim_gpu *gpu = nvsim_gpu_by_id(gpu_id);

	if (gpu)
		WARN_ON_ONCE(atomic_dec_return(&gpu->attached) < 0);
}

/**
 * nvsim_attach_gpus() - ATTACH_GPUS_TO_FD on a ctl file
 * @file: the file the ioctl was issued on
 * @params: the kernel copy of the ids
 * @size: their size
 *
 * Context: process context.
 * Return: 0; -EINVAL on a GPU file, for a size that is no list of ids, on a file that attached
 * already, or when an id is no GPU (nothing stays attached then); -ENOMEM.
 */
int nvsim_attach_gpus(struct file *file, const void *params, u32 size)
{
	struct nvsim_file *nf = file->private_data;
	u32 n = size / sizeof(u32);
	u32 *ids;
	u32 i;

	if (!nf->is_ctl || !n || size % sizeof(u32))
		return -EINVAL;
	mutex_lock(&nvsim_attach_lock);
	if (nf->num_attached_gpus) {
		mutex_unlock(&nvsim_attach_lock);
		return -EINVAL;
	}
	ids = kmemdup(params, size, GFP_KERNEL);
	if (!ids) {
		mutex_unlock(&nvsim_attach_lock);
		return -ENOMEM;
	}
	nf->attached_gpus = ids;
	nf->num_attached_gpus = n;
	mutex_unlock(&nvsim_attach_lock);

	for (i = 0; i < n; i++) {
		if (!ids[i])
			continue;
		if (nvidia_dev_get(ids[i], NULL, false)) {
			while (i--)
				if (ids[i])
					nvidia_dev_put(ids[i], NULL, false);
			mutex_lock(&nvsim_attach_lock);
			kfree(nf->attached_gpus);
			nf->attached_gpus = NULL;
			nf->num_attached_gpus = 0;
			mutex_unlock(&nvsim_attach_lock);
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * nvsim_attach_release() - the ctl file closes: let its attached GPUs go
 * @nf: the file
 *
 * Context: process context (release); no other call is in flight on the file.
 */
void nvsim_attach_release(struct nvsim_file *nf)
{
	u32 i;

	for (i = 0; i < nf->num_attached_gpus; i++)
		if (nf->attached_gpus[i])
			nvidia_dev_put(nf->attached_gpus[i], NULL, false);
	kfree(nf->attached_gpus);
	nf->attached_gpus = NULL;
	nf->num_attached_gpus = 0;
}

static int nvsim_attach_show(struct seq_file *m, void *v)
{
	struct nvsim_gpu *gpu = m->private;

	seq_printf(m, "%d\n", atomic_read(&gpu->attached));
	return 0;
}

/**
 * nvsim_attach_proc_init() - /proc/driver/nvsim/gpu<N>/attached
 * @gpu: the GPU, whose proc directory exists
 *
 * Return: 0, or -ENOMEM. The file goes with the directory.
 */
int nvsim_attach_proc_init(struct nvsim_gpu *gpu)
{
	atomic_set(&gpu->attached, 0);
	if (!proc_create_single_data("attached", 0444, gpu->proc, nvsim_attach_show, gpu))
		return -ENOMEM;
	return 0;
}
