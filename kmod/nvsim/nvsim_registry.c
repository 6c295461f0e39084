// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: RM_ACCESS_REGISTRY, the driver's registry of DWORD keys, as RmAccessRegistry() in osapi.c
 * and registry.c keep it (525-595).
 *
 * The client is looked up by handle alone (serverAcquireClient(), not RmIoctl()'s client checks):
 * any process may name any client, as in the real driver. hObject equal to hClient names the
 * global registry; a device or subdevice of that client names its GPU's, whose reads fall back to
 * the global one. A key is ParmStrLength characters (at most 255) and the NUL after them, compared
 * without regard to case. DWORD reads and writes are simulated, writes by any caller: RM asks for
 * an administrator only to write every GPU of a device at once, and nvsim's devices have one GPU.
 * A key never written reads NV_ERR_GENERIC. Binary keys answer NV_ERR_NOT_SUPPORTED (not
 * simulated), other access types NV_ERR_INVALID_ACCESS_TYPE. Entries live until nvsim is
 * unloaded, as the driver's do. RM copies the key under its API lock; nvsim before it takes its
 * own, as it copies everything, so a key that cannot be read is reported before a client that
 * does not exist.
 */
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "nvsim_internal.h"

#define NVSIM_REG_KEY_MAX	256	/* NVOS38_MAX_REGISTRY_STRING_LENGTH, the NUL included */

/**
 * struct nvsim_reg_entry - one DWORD key
 * @node: in nvsim_registry
 * @gpu: the GPU whose registry it is in, NULL for the global one
 * @key: its name
 * @data: its value
 */
struct nvsim_reg_entry {
	struct list_head node;
	const struct nvsim_gpu *gpu;
	char key[NVSIM_REG_KEY_MAX];
	u32 data;
};

/* Every key, under nvsim_rm_lock. */
static LIST_HEAD(nvsim_registry);

static struct nvsim_reg_entry *nvsim_reg_find(const struct nvsim_gpu *gpu, const char *key)
{
	struct nvsim_reg_entry *e;

	list_for_each_entry(e, &nvsim_registry, node)
		if (e->gpu == gpu && !strcasecmp(e->key, key))
			return e;
	return NULL;
}

static u32 nvsim_reg_read(const struct nvsim_gpu *gpu, const char *key, u32 *data)
{
	struct nvsim_reg_entry *e = gpu ? nvsim_reg_find(gpu, key) : NULL;

	if (!e)
		e = nvsim_reg_find(NULL, key);
	if (!e)
		return NVRM_ERR_GENERIC;
	*data = e->data;
	return NVRM_OK;
}

static u32 nvsim_reg_write(const struct nvsim_gpu *gpu, const char *key, u32 data)
{
	struct nvsim_reg_entry *e = nvsim_reg_find(gpu, key);

	if (!e) {
		e = kzalloc(sizeof(*e), GFP_KERNEL);
		if (!e)
			return NVRM_ERR_GENERIC;
		e->gpu = gpu;
		strscpy(e->key, key, sizeof(e->key));
		list_add_tail(&e->node, &nvsim_registry);
	}
	e->data = data;
	return NVRM_OK;
}

/* The registry @p names: NULL for the global one; or the status RM answers. */
static u32 nvsim_reg_gpu(const struct nvrm_nvos38 *p, const struct nvsim_gpu **gpu)
{
	struct nvsim_client *client = nvsim_client_lookup(p->hclient);
	struct nvsim_object *obj;

	*gpu = NULL;
	if (!client)
		return NVRM_ERR_INVALID_CLIENT;
	if (p->hobject == p->hclient)
		return NVRM_OK;
	obj = nvsim_object_lookup(client, p->hobject);
	if (!obj)
		return NVRM_ERR_OBJECT_NOT_FOUND;
	if (obj->hclass != NVRM_CLASS_NV01_DEVICE_0 && obj->hclass != NVRM_CLASS_NV20_SUBDEVICE_0)
		return NVRM_ERR_INVALID_OBJECT_HANDLE;
	*gpu = obj->gpu;
	return NVRM_OK;
}

/* The key @p names, copied from the caller into @key; NVRM_OK or the status RM answers. */
static u32 nvsim_reg_key(struct file *file, const struct nvrm_nvos38 *p, char *key)
{
	struct nvsim_caller caller = nvsim_user_caller(file);
	u32 len = p->parm_str_length + 1;	/* RM counts the NUL */

	if (!p->parm_str_length)
		return NVRM_ERR_INVALID_ARGUMENT;	/* no key: RM reads and writes NULL */
	if (!len || len > NVSIM_REG_KEY_MAX)	/* !len: the count wrapped, as RM checks */
		return NVRM_ERR_INVALID_STRING_LENGTH;
	if (nvsim_copy_in(&caller, key, p->parm_str, len))
		return NVRM_ERR_OPERATING_SYSTEM;
	if (key[len - 1])
		return NVRM_ERR_INVALID_ARGUMENT;
	return NVRM_OK;
}

/**
 * nvsim_rm_access_registry() - RM_ACCESS_REGISTRY (NVOS38) on a ctl file
 * @file: the file
 * @params: the kernel copy of NVOS38; its status and Data are written
 * @size: its size
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0, or -EINVAL for a wrong size or a GPU file (the driver's answer).
 */
int nvsim_rm_access_registry(struct file *file, void *params, u32 size)
{
	struct nvrm_nvos38 *p = params;
	const struct nvsim_gpu *gpu;
	char *key;
	u32 status;

	if (size != sizeof(*p) || !((struct nvsim_file *)file->private_data)->is_ctl)
		return -EINVAL;
	key = kzalloc(NVSIM_REG_KEY_MAX, GFP_KERNEL);
	if (!key) {
		p->status = NVRM_ERR_NO_MEMORY;
		return 0;
	}
	status = nvsim_reg_key(file, p, key);
	mutex_lock(&nvsim_rm_lock);
	if (status == NVRM_OK)
		status = nvsim_reg_gpu(p, &gpu);
	if (status == NVRM_OK) {
		switch (p->access_type) {
		case NVRM_NVOS38_ACCESS_TYPE_READ_DWORD:
			status = nvsim_reg_read(gpu, key, &p->data);
			break;
		case NVRM_NVOS38_ACCESS_TYPE_WRITE_DWORD:
			status = nvsim_reg_write(gpu, key, p->data);
			break;
		case NVRM_NVOS38_ACCESS_TYPE_READ_BINARY:
		case NVRM_NVOS38_ACCESS_TYPE_WRITE_BINARY:
			status = NVRM_ERR_NOT_SUPPORTED;	/* not simulated */
			break;
		default:
			status = NVRM_ERR_INVALID_ACCESS_TYPE;
		}
	}
	mutex_unlock(&nvsim_rm_lock);
	kfree(key);
	p->status = status;
	return 0;
}

/* Module exit: the keys go with the driver. */
void nvsim_registry_exit(void)
{
	struct nvsim_reg_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, &nvsim_registry, node)
		kfree(e);
	INIT_LIST_HEAD(&nvsim_registry);
}
