/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stackful fibers under the GPU emulation (gpu_emulation.h): start a
 * function on a stack of its own and switch between it and the scheduler.
 *
 * Why not ucontext alone: glibc's swapcontext saves and restores the signal
 * mask, a system call on every switch, and the emulated kernels switch at
 * every barrier of every emulated thread. On x86-64 a switch here saves only
 * what the System V ABI asks a callee to keep (rbx, rbp, r12-r15, the MXCSR
 * and x87 control words) on the stack it leaves and swaps stack pointers.
 * Elsewhere (or with BF_EMU_UCONTEXT defined) the fibers are ucontexts, as
 * before.
 *
 * Stacks come from a pool kept for the life of the process: the emulation
 * starts a block's threads again for every block, and a fresh 1 MiB stack per
 * thread and block made the heap grow and shrink (page faults) on every block.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_EMULATION_FIBER_CONTEXT_H
#define INCLUDED_BEAMFORM_KERNELS_EMULATION_FIBER_CONTEXT_H

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#if !defined(__x86_64__) && !defined(BF_EMU_UCONTEXT)
#define BF_EMU_UCONTEXT 1
#endif
#ifdef BF_EMU_UCONTEXT
#include <ucontext.h>
#endif

namespace emu {

//! Bytes of each fiber's stack.
constexpr size_t fiber_stack_bytes = 1024 * 1024;

//! The stack of the \p i-th thread of a block; the same memory every block.
inline void* fiber_stack(size_t i)
{
    struct freer {
        void operator()(void* p) const { std::free(p); }
    };
    static std::vector<std::unique_ptr<void, freer>> pool;
    while (pool.size() <= i) {
        void* p = std::malloc(fiber_stack_bytes);
        if (!p)
            throw std::bad_alloc();
        pool.emplace_back(p);
    }
    return pool[i].get();
}

#ifdef BF_EMU_UCONTEXT

//! Where a fiber (or the scheduler) continues.
struct fiber_context {
    ucontext_t ctx;
};

//! Prepare \p c to run \p entry (which must never return) on \p stack.
inline void fiber_prepare(fiber_context& c, void* stack, void (*entry)())
{
    getcontext(&c.ctx);
    c.ctx.uc_stack.ss_sp = stack;
    c.ctx.uc_stack.ss_size = fiber_stack_bytes;
    c.ctx.uc_link = nullptr;
    makecontext(&c.ctx, entry, 0);
}

//! Save where the caller is into \p from and continue at \p to.
inline void fiber_switch(fiber_context& from, fiber_context& to)
{
    swapcontext(&from.ctx, &to.ctx);
}

#else

struct fiber_context {
    void* sp = nullptr; //!< the saved stack pointer (registers stored below it)
};

// rdi: where to store the current stack pointer; rsi: the stack to continue
// on. The layout of what is pushed is fiber_prepare's.
__attribute__((naked, noinline)) static void fiber_switch_x86_64(void**, void*)
{
    asm("pushq %rbp\n\t"
        "pushq %rbx\n\t"
        "pushq %r12\n\t"
        "pushq %r13\n\t"
        "pushq %r14\n\t"
        "pushq %r15\n\t"
        "subq $8, %rsp\n\t"
        "stmxcsr (%rsp)\n\t"
        "fnstcw 4(%rsp)\n\t"
        "movq %rsp, (%rdi)\n\t"
        "movq %rsi, %rsp\n\t"
        "ldmxcsr (%rsp)\n\t"
        "fldcw 4(%rsp)\n\t"
        "addq $8, %rsp\n\t"
        "popq %r15\n\t"
        "popq %r14\n\t"
        "popq %r13\n\t"
        "popq %r12\n\t"
        "popq %rbx\n\t"
        "popq %rbp\n\t"
        "ret\n\t");
}

inline void fiber_prepare(fiber_context& c, void* stack, void (*entry)())
{
    // From the top: a null return address for entry (an unwinder or a
    // debugger stops there), the address fiber_switch's `ret` takes (entry),
    // placed so that entry starts with the stack as a call leaves it (rsp + 8
    // a multiple of 16), six zero registers, and the caller's control words.
    auto top = (reinterpret_cast<uintptr_t>(stack) + fiber_stack_bytes) & ~uintptr_t(15);
    auto* slot = reinterpret_cast<uint64_t*>(top - 16);
    slot[1] = 0;
    slot[0] = reinterpret_cast<uint64_t>(entry);
    for (int r = 1; r <= 6; r++)
        slot[-r] = 0;
    uint32_t control[2] = { 0, 0 };
    asm volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(control[0]), "=m"(control[1]));
    slot[-7] = uint64_t(control[0]) | (uint64_t(control[1] & 0xffff) << 32);
    c.sp = &slot[-7];
}

inline void fiber_switch(fiber_context& from, fiber_context& to)
{
    fiber_switch_x86_64(&from.sp, to.sp);
}

#endif

} // namespace emu

#endif
