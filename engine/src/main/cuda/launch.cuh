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
