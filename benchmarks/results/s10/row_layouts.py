"""Reader logits of one table row in five layouts, for answering and unrelated questions (one-off;
session 10): PYTHONPATH=. .venv/bin/python benchmarks/results/s10/row_layouts.py"""
import re,sys
from rag_core.models.cross import CrossEncoder
ce=CrossEncoder.shared(None,max_length=128)
ROW=re.compile(r"^(?P<col>[^:;]{2,60}): (?P<label>[^;]{1,120}); (?P<rest>.*)$")
def cells(rest):
    out=[]
    for part in rest.rstrip('.').split('; '):
        if ': ' in part: k,v=part.split(': ',1); out.append((k,v))
        else: out.append(('',part))
    return out
def variants(h,row):
    m=ROW.match(row); col,label,rest=m['col'],m['label'],m['rest']; cs=cells(rest)
    v={}
    v['V0 as is']=f"{h}: {row}"
    v['V1 label-first']=f"{h}: {label} ({col.lower()}): "+"; ".join(f"{k}: {x}" for k,x in cs)+"."
    v['V2 natural']=f"{h}: {label} ({col.lower()}): "+", ".join(f"{k} is {x}" if k else x for k,x in cs)+"."
    v['V3 nohead label-first']=f"{label} ({col.lower()}): "+"; ".join(f"{k}: {x}" for k,x in cs)+"."
    v['V4 for-natural']=f"{h}: For {label}, "+", and ".join(f"{k} is {x}" if k else x for k,x in cs)+"."
    return v
tests=[
("how much is deducted from each paycheck for the PPO Plan if I cover myself and my spouse?","Employee Contributions","Coverage tier: Employee + spouse or domestic partner; PPO Plan (per paycheck): $148.00; HDHP with HSA (per paycheck): $71.00."),
("Could you please tell me how much is deducted from each paycheck for the PPO Plan if I cover myself and my spouse?","Employee Contributions","Coverage tier: Employee + spouse or domestic partner; PPO Plan (per paycheck): $148.00; HDHP with HSA (per paycheck): $71.00."),
("just had baby #2 and we're on the hdhp family tier now, how much is actually coming out of each paycheck for medical??","Employee Contributions","Coverage tier: Family; PPO Plan (per paycheck): $212.00; HDHP with HSA (per paycheck): $104.00."),
("I am enrolled in the Enhanced dental tier. What percentage of the allowed amount does the plan pay for a root canal at an in-network dentist?","Tier Comparison","Feature (in-network): Basic services (fillings, simple extractions, root canals, periodontal scaling); Basic: 70% after deductible; Enhanced: 80% after deductible."),
("If I visit the emergency room while enrolled in the PPO Plan, what copay will I owe, and does it still apply if I am admitted to the hospital?","Plan Options at a Glance","Benefit (in-network): Emergency room; PPO Plan: $300 copay (waived if admitted); HDHP with HSA: 20% after deductible."),
("whats the worst case in-network OOP max for us on the HDHP family","Plan Options at a Glance","Benefit (in-network): Out-of-pocket maximum (individual / family); PPO Plan: $4,000 / $8,000; HDHP with HSA: $4,500 / $9,000."),
("I have been with Fabrikam for seven years. What is the maximum vacation balance I can hold before my accrual stops?","Paid Time Off (Vacation)","Years of service: 6 or more years; Annual vacation: 25 days (200 hours); Accrual per biweekly pay period: 7.69 hours; Maximum balance: 300 hours."),
("What is the ER copay on the PPO?","Plan Options at a Glance","Benefit (in-network): Emergency room; PPO Plan: $300 copay (waived if admitted); HDHP with HSA: 20% after deductible."),
# distractors (should stay low)
("Does Fabrikam offer pet insurance?","Employee Contributions","Coverage tier: Family; PPO Plan (per paycheck): $212.00; HDHP with HSA (per paycheck): $104.00."),
("copay for a routine hearing exam under the PPO?","Plan Options at a Glance","Benefit (in-network): Emergency room; PPO Plan: $300 copay (waived if admitted); HDHP with HSA: 20% after deductible."),
("how much does the long-term care insurance premium cost per paycheck?","Employee Contributions","Coverage tier: Family; PPO Plan (per paycheck): $212.00; HDHP with HSA (per paycheck): $104.00."),
]
for q,h,row in tests:
    v=variants(h,row); s=ce.logits(q,list(v.values()))
    print(q[:70]); print('   '+'  '.join(f"{k.split()[0]} {x:5.2f}" for k,x in zip(v,s)))
print(variants(*tests[0][1:]))
