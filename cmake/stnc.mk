# stnc.mk — compile .stn stencil programs from a GNU Makefile.
#
#   STNC      := /path/to/stnc            # default: `stnc` on PATH
#   STNC_OUT  := build/gen                # where FILE.h / FILE.cpp / FILE.cu / FILE.json go (default: .)
#   include /path/to/stnc/cmake/stnc.mk   # set the variables BEFORE this line (rule targets use them)
#
#   main.o: $(STNC_OUT)/heat.h            # anything that needs the generated code depends on it
#   $(STNC_OUT)/heat.o: $(STNC_OUT)/heat.cpp ; $(CXX) $(STNC_CXXFLAGS) -c $< -o $@
#   $(STNC_OUT)/heat_cu.o: $(STNC_OUT)/heat.cu ; $(STNC_NVCC) $(STNC_NVCCFLAGS) -c $< -o $@
#
# The pattern rule turns FILE.stn (found as a prerequisite path; use `vpath %.stn DIR` for sources
# elsewhere) into $(STNC_OUT)/FILE.{h,cpp,cu,json} with one stnc invocation, and asks stnc for a
# depfile ($(STNC_OUT)/FILE.stn.d, `-M`) listing every file the compilation read: the .stn and every
# imported module (stdlib/fd.stn, ...). Those depfiles are included below, so editing an imported
# file regenerates — and through the generated sources recompiles — everything that uses it.
# A missing imported file does not break the build: stnc's depfile also lists each import as an
# empty target. When STNC names an existing file, the outputs also depend on the compiler itself.
#
# Variables (all `?=`: set them on the command line or before the include):
#   STNC             the compiler                                   (stnc)
#   STNC_FLAGS       extra stnc flags, e.g. -I include/dirs         ()
#   STNC_OUT         output directory of the generated sources      (.)
#   STNC_ARCH        CUDA architecture: stnc --arch, STNC_NVCCFLAGS  (sm_90)
#   STNC_CXXFLAGS    flags for the generated OpenMP C++ (no FMA contraction, so CPU == GPU bitwise)
#   STNC_NVCCFLAGS   flags for the generated CUDA (-fmad=false for the same reason)
#   STNC_NVCC        nvcc                                           (nvcc on PATH or /usr/local/cuda/bin/nvcc)
#   STNC_DISTRIBUTED 1: also generate $(STNC_OUT)/FILE_mpi.h (stnc --distributed, docs/DISTRIBUTED.md)
#                    in the same run                                 (0)

ifndef STNC_MK_INCLUDED
STNC_MK_INCLUDED := 1

STNC ?= stnc
STNC_FLAGS ?=
STNC_OUT ?= .
STNC_ARCH ?= sm_90
STNC_DISTRIBUTED ?= 0
STNC_CXXFLAGS ?= -std=c++17 -O3 -fopenmp -ffp-contract=off
STNC_NVCCFLAGS ?= -std=c++17 -O3 -arch=$(STNC_ARCH) -fmad=false
ifeq ($(origin STNC_NVCC),undefined)
STNC_NVCC := $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc),nvcc)
endif

# Rebuild the generated code when the compiler binary changes (only when STNC is a path to a file).
STNC_SELF_DEP = $(wildcard $(STNC))

# One stnc run writes all four outputs (a grouped pattern rule) plus the depfile.
ifeq ($(STNC_DISTRIBUTED),1)
$(STNC_OUT)/%.h $(STNC_OUT)/%.cpp $(STNC_OUT)/%.cu $(STNC_OUT)/%.json $(STNC_OUT)/%_mpi.h: %.stn $(STNC_SELF_DEP)
	@mkdir -p $(@D)
	$(STNC) $< -o $(@D) --target all --arch $(STNC_ARCH) --distributed $(STNC_FLAGS) -M $(@D)/$*.stn.d
else
$(STNC_OUT)/%.h $(STNC_OUT)/%.cpp $(STNC_OUT)/%.cu $(STNC_OUT)/%.json: %.stn $(STNC_SELF_DEP)
	@mkdir -p $(@D)
	$(STNC) $< -o $(@D) --target all --arch $(STNC_ARCH) $(STNC_FLAGS) -M $(@D)/$*.stn.d
endif

# The depfiles of earlier runs (absent on the first build: then everything is generated anyway).
# Their rules must not become the includer's default goal: keep whatever it was.
STNC_MK_GOAL := $(.DEFAULT_GOAL)
-include $(wildcard $(STNC_OUT)/*.stn.d)
.DEFAULT_GOAL := $(STNC_MK_GOAL)

endif
