set -u
export PATH=/usr/local/cuda/bin:$PATH STNC_STDLIB=$PWD/stdlib
make -C samples/acoustic -j8 all GPU=1 STNC=$PWD/build-static/stnc O=/tmp/ab STNC_FLAGS="$FLAGS" > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
bin=/tmp/ab/gpu/acoustic
cap() {  # name kernel skip points
  ncu --set none --section SourceCounters --section SchedulerStats --section WarpStateStats --kernel-name $2 --launch-skip $3 --launch-count 1 -o /tmp/$1 -f $bin --backend cuda --n 800 --steps 1 --init random > /tmp/$1.log 2>&1 || tail -5 /tmp/$1.log
  ncu -i /tmp/$1.ncu-rep --page source --csv --print-source sass > $OUT/$1.csv 2>/dev/null
  ncu -i /tmp/$1.ncu-rep --page details --csv > $OUT/$1-details.csv 2>/dev/null
  echo "### $1 ($2, launch $3)"; python3 scripts/gpu/sass_hot.py $OUT/$1.csv $4
  grep -E '"(Issue Slots Busy|Issued Warp Per Scheduler|No Eligible|Active Warps Per Scheduler|Eligible Warps Per Scheduler|Warp Cycles Per Issued Instruction|Avg. Active Threads Per Warp)"' $OUT/$1-details.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
}
# The launches of one step (profile.sh's table): the i- and j-faces run the TMA ring kernel (launches 0, 1 and
# 2, 3 of sweepPart_tma), the k-faces the cp.async one (sweepPart 0, 1), then the inner region.
cap iface sweepPart_tma 0 17280000
cap jface sweepPart_tma 2 16113600
cap kface sweepPart 0 15025932
cap inner sweepPart_inner 0 415160936
