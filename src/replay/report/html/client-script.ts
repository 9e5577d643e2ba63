// The page's only script, inline: the filters (they toggle `hidden`, nothing else), the group a link
// chose (`#group-<id>`), the links to an entry (`#entry-<index>`) or to a difference's row (`#e<index>-d<n>`)
// which reveal and open what they point at, and the curl lines' copy buttons.
// It must never fetch anything (the page's Content-Security-Policy forbids it anyway); with JavaScript off
// every entry stays shown, folds and entries open natively, and links still jump.

export const CLIENT_SCRIPT = `
(function(){
  'use strict';
  var form=document.getElementById('filters');
  if(!form)return;
  var shown=document.getElementById('shown');
  var groupBox=document.getElementById('group-filter');
  var groupName=document.getElementById('group-name');
  var items=Array.prototype.slice.call(document.querySelectorAll('li.entry'));
  var activeGroup='';
  function each(list,fn){Array.prototype.forEach.call(list,fn);}
  function checked(name){var s={};each(form.querySelectorAll('input[name="'+name+'"]'),function(i){if(i.checked)s[i.value]=true;});return s;}
  function groupLabel(id){
    var row=document.querySelector('tr.group[data-group="'+id+'"]');
    if(!row)return '#'+id;
    return row.querySelector('.g-method').textContent+' '+row.querySelector('.g-path').textContent+' '+row.querySelector('.kind').textContent;
  }
  var last='';
  function apply(){
    var outcomes=checked('outcome'),kinds=checked('kind');
    var method=document.getElementById('filter-method').value;
    var text=document.getElementById('filter-url').value.toLowerCase();
    // A checkbox sends both input and change: the second finds nothing to do.
    var state=JSON.stringify([outcomes,kinds,method,text,activeGroup]);
    if(state===last)return;
    last=state;
    var visible=0;
    items.forEach(function(li){
      var d=li.dataset;
      var ok=!!outcomes[d.outcome]&&(!method||d.method===method)&&(!text||d.url.indexOf(text)>=0);
      if(ok&&d.kinds){ok=d.kinds.split(' ').some(function(k){return kinds[k];});}
      if(ok&&activeGroup){ok=(' '+d.groups+' ').indexOf(' '+activeGroup+' ')>=0;}
      if(li.hidden!==!ok)li.hidden=!ok;
      if(ok)visible++;
      if(!d.kinds)return;
      each(li.querySelectorAll('tr[data-kind]'),function(tr){if(tr.hidden!==!kinds[tr.dataset.kind])tr.hidden=!kinds[tr.dataset.kind];});
      each(li.querySelectorAll('[data-group]'),function(el){el.classList.toggle('in-group',!!activeGroup&&el.dataset.group===activeGroup);});
    });
    each(document.querySelectorAll('tr.group'),function(tr){tr.classList.toggle('active',tr.dataset.group===activeGroup);});
    shown.textContent='Showing '+visible+' of '+items.length+' entries';
    if(groupBox.hidden!==!activeGroup){groupBox.hidden=!activeGroup;keepClearOfFilters();}
    groupName.textContent=activeGroup?groupLabel(activeGroup):'';
  }
  // Links and scrolling land below the sticky filter bar, whatever its height at this width. Measured only
  // when that height may change: a measure lays out the whole page.
  function keepClearOfFilters(){
    document.documentElement.style.scrollPaddingTop=(form.parentNode.offsetHeight+8)+'px';
  }
  function showGroup(id){
    activeGroup=id;
    apply();
    document.getElementById('entries-h').scrollIntoView({block:'start'});
  }
  function reveal(target){
    var li=target.closest('li.entry');
    if(!li)return;
    if(li.hidden){activeGroup='';form.reset();last='';apply();}
    li.querySelector('details').open=true;
    var fold=target.closest('details.fold');
    if(fold)fold.open=true;
    target.scrollIntoView({block:target===li?'start':'center'});
  }
  function route(){
    var h=location.hash.slice(1);
    var m=/^group-(\\d+)$/.exec(h);
    if(m){showGroup(m[1]);return;}
    var target=h?document.getElementById(h):null;
    if(target)reveal(target);
  }
  form.addEventListener('input',apply);
  form.addEventListener('change',apply);
  document.getElementById('group-clear').addEventListener('click',function(){activeGroup='';apply();});
  document.addEventListener('click',function(ev){
    var t=ev.target;
    if(!t||!t.closest)return;
    var link=t.closest('a[href^="#group-"]');
    // The same link twice makes no hashchange: apply it here too.
    if(link){showGroup(link.getAttribute('href').slice(7));return;}
    var button=t.closest('button.copy');
    if(!button)return;
    var pre=button.parentNode.querySelector('pre');
    var done=function(ok){button.textContent=ok?'Copied':'Selected: copy it';setTimeout(function(){button.textContent='Copy';},1500);};
    var select=function(){var r=document.createRange();r.selectNodeContents(pre);var s=window.getSelection();s.removeAllRanges();s.addRange(r);};
    if(navigator.clipboard&&navigator.clipboard.writeText){navigator.clipboard.writeText(pre.textContent).then(function(){done(true);},function(){select();done(false);});}
    else{select();done(false);}
  });
  window.addEventListener('hashchange',route);
  window.addEventListener('resize',keepClearOfFilters);
  apply();
  keepClearOfFilters();
  route();
})();`;
