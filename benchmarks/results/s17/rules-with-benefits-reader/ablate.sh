#!/bin/bash
# runs rule ablations two at a time on the later sets with the held-out benefits reader
cd /tmp/s17/split2
run() { env READER_WEIGHTS=benefits "$2" D2=$3 bash /tmp/s17/run_split.sh /tmp/s17/ab-$1 > /dev/null 2>&1; }
run answer_type ANSWER_TYPE_GATE=false /tmp/s15/d2 & run lone LONE_LIST_ITEMS=false /tmp/final4 & wait
run sibling SIBLING_SECTIONS=false /tmp/s15/d2 & run othermax OTHER_MAXIMUM=false /tmp/final4 & wait
run ranges RANGE_ROWS=false /tmp/s15/d2 & run named NAMED_DOCUMENT_SCOPE=false /tmp/final4 & wait
run samedoc QUANTITY_SAME_DOCUMENT=false /tmp/s15/d2 & run tie ANSWER_TIE_MARGIN=-1 /tmp/final4 & wait
touch /tmp/s17/ab-ALLDONE
