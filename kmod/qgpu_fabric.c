// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: NV_MEMORY_FABRIC objects hold the video memory they map.
 *
 * DOC: fabric memory
 *
 * On a GPU of an NVLink fabric (NVSwitch systems: HGX and DGX boards, NVL72 racks) CUDA gives
 * memory a fabric address for its peers with an RM_ALLOC of NV_MEMORY_FABRIC (0xF8) under the
 * subdevice, any user may (RS_FLAGS_ALLOC_NON_PRIVILEGED, resource_list.h). A "sticky" object
 * names the caller's video memory in its parameters, and RM duplicates that handle into the
 * fabric VA space's own client until the object's last copy goes (memoryfabricConstruct_IMPL(),
 * mem_fabric.c, 525-595; kmod/nvrm/nvrm_fabric.c). So the memory outlives every handle of the
 * tenant's to it, as it does behind an export fd: were the charge to follow those handles, a
 * tenant could allocate its limit, wrap it, free it and allocate again, bounded only by the
 * GPU's fabric address range.
 *
 * The object therefore holds the charge of the memory it names: qgpu reads the request, takes a
 * reference to the charge of the handle it names in the caller's client (RM looks only there),
 * has RM read that same copy (sealed, the instance's params_seal), and puts the reference on
 * the object's mirror node where RM made it. The node then carries the charge as a duplicate
 * does: its copies (RM_DUP_OBJECT) and exports share it, and the last of them to go uncharges
 * the memory, with the memory's own handles gone or not. A flexible object names no memory; RM
 * maps memory into one later (NV00F8_CTRL_CMD_ATTACH_MEM) with an inter-mapping that it undoes
 * when the memory is freed, so it holds nothing. Without the probe (``seal=0``) RM reads the
 * tenant's parameters and qgpu reads RM's answer from them: a sibling thread that changes the
 * handle under the call makes the object hold the charge of the memory qgpu read, not of what
 * RM duplicated, and one that rewrites the status leaves the object holding none.
 */
#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "nvrm/nvrm_fabric.h"
#include "qgpu_fabric.h"
#include "qgpu_internal.h"
#include "qgpu_mem.h"
#include "qgpu_rmtrack.h"
#include "qgpu_seal.h"

/**
 * qgpu_fabric_begin() - before an RM_ALLOC is forwarded: what a fabric object will hold
 * @qf: the proxy ctl file
 * @a: the decoded allocation
 * @seal: set up so that RM reads qgpu's copy of the parameters, for the forward that follows
 * @fab: filled for qgpu_fabric_end() and qgpu_fabric_made()
 *
 * Context: the tracker's lock held; takes the instance's params_seal until qgpu_fabric_end()
 *	where @fab->params is set.
 * Return: NVRM_OK (forward it), or the status to answer instead (nothing held then).
 */
u32 qgpu_fabric_begin(struct qgpu_file *qf, const struct nvrm_alloc *a, struct qgpu_seal *seal,
		      struct qgpu_fabric *fab)
{
	const struct nvrm_abi *abi = &qf->inst->gpu->abi;
	u32 size = abi->nv00f8_alloc_params_size;
	struct nvrm_fabric_alloc f;
	void *p;

	memset(fab, 0, sizeof(*fab));
	if (a->hclass != NVRM_CLASS_NV_MEMORY_FABRIC || !a->params_ptr || !size)
		return NVRM_OK;	/* no parameters: RM refuses the class */
	p = memdup_user(u64_to_user_ptr(a->params_ptr), size);
	if (IS_ERR(p))	/* RM's answer to parameters it cannot read */
		return NVRM_ERR_INVALID_ADDRESS;
	if (nvrm_fabric_alloc_decode(abi, p, size, &f)) {
		kfree(p);
		return NVRM_OK;
	}
	if (qgpu_seal_params_lock(&qf->inst->params_seal, seal, a->params_ptr, p, size)) {
		/* killed while another forward waited on RM: the process never sees the status */
		kfree(p);
		return NVRM_ERR_INVALID_STATE;
	}
	if (nvrm_fabric_holds_memory(&f) && f.hvidmem)
		fab->charge = qgpu_mem_node_charge(qgpu_rmtrack_find(qf->track, a->hroot,
								     f.hvidmem));
	fab->params = p;
	return NVRM_OK;
}

/**
 * qgpu_fabric_end() - the forward qgpu_fabric_begin() allowed returned
 * @qf: the proxy ctl file
 * @seal: as set up there
 * @fab: as filled there; its charge is kept for qgpu_fabric_made()
 * @rm_ok: RM made the object (its own status, in qgpu's copy of a sealed call)
 */
void qgpu_fabric_end(struct qgpu_file *qf, struct qgpu_seal *seal, struct qgpu_fabric *fab,
		     bool rm_ok)
{
	if (!fab->params)
		return;
	qgpu_seal_params_unlock(&qf->inst->params_seal, seal, rm_ok);
	kfree(fab->params);
	fab->params = NULL;
}

/**
 * qgpu_fabric_made() - the object's mirror node carries the charge of the memory it holds
 * @fab: as qgpu_fabric_end() left it
 * @node: the node of what RM made, or NULL: nothing made, or nothing mirrored (the caller then
 *	has RM free it again)
 *
 * Context: the tracker's lock held.
 * Return: whether the object holds charged memory (the caller frees it when @node is NULL).
 */
bool qgpu_fabric_made(struct qgpu_fabric *fab, struct qgpu_rmnode *node)
{
	if (!fab->charge)
		return false;
	if (!node || !qgpu_mem_attach(node, fab->charge))
		qgpu_mem_charge_put(fab->charge);
	fab->charge = NULL;
	return true;
}
