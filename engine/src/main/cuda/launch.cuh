// The launch parameter of the copy kernels, shared by copy.cu (the threads' copy) and copy_bulk.cu (the bulk-copy
// unit's), so that both modules take the same bytes from KernelLauncher (CopyKernel.LAUNCH_* are their offsets).
#pragma once

// Every launch takes one parameter, a struct (JCuda marshals one parameter in a direct buffer several times
// faster than eight separate ones): the four pool bases (device-visible addresses, host pools through
// cuMemHostGetDevicePointer), the entry count, log2 of the threads per entry, and for kvledger_copy the table's
// address and the index of the launch's first entry.
struct Launch
{
    unsigned long long base[4];
    unsigned int count;
    unsigned int groupShift;
    unsigned long long table;
    unsigned int first;
    unsigned int unused;
};

// kvledger_copy_params carries the entries of a small launch after the Launch header in its parameter (4 KiB in
// all): no table in memory, nothing copied or read before the copying starts.
#define PARAM_ENTRIES 252

struct ParamLaunch
{
    Launch launch;
    ulonglong2 entries[PARAM_ENTRIES];
};

// kvledger_copy_resident's one parameter: launched once and left running, it takes batches from a control block in
// mapped pinned host memory (see copy.cu), so a batch costs the host a few stores instead of driver calls.
struct Resident
{
    Launch launch;                   // the pool bases; the other fields are unused
    unsigned long long tables;       // device-visible address of the mapped host entry tables, one region a batch
    unsigned long long control;      // device-visible address of the mapped control block
    unsigned long long counters;     // device memory, zeroed: [0] the doorbell as block 0 last read it, [1] arrivals
    unsigned int tableBytes;         // bytes of one batch's table region
    unsigned int unused;
};

// The control block (little-endian; offsets in bytes): 0 doorbell, the last batch sequence posted (host); 8 stop
// (host, non-zero once every posted batch is done); 16 done, the last sequence completed (device); from 64, a ring
// of RESIDENT_RING descriptors of 64 bytes, sequence s at (s % RESIDENT_RING): u32 batch index, u32 stage count,
// u32 first entry, u32 unused, then per stage u32 end (one past its last entry) and u32 log2 of its threads per
// entry. The stages run one after the other (a grid-wide barrier between them), as the launches of one batch do; a
// batch of more stages takes several sequences, each going on where the one before stopped.
#define RESIDENT_RING 16
#define RESIDENT_STAGES 6
#define RESIDENT_DESCRIPTOR_WORDS 16
